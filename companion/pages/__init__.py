"""The HTML pages: home, joining, the host screen and the phones, the rules at hand, the
history, statistics and story pages, the keeper's page, the offline page and the service worker.

May import: ``play``, ``group``, ``table``, ``help``, the edge, the store, the engine.
"""
