"""A table's life: the authority that applies each event (lock, receipt, version, commit),
the game's actions, opening, importing, joining and handing over tables, the keeper's key.

May import: everything below it: ``group``, ``table``, the edge, the store, the engine.
"""
