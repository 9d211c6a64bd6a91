"""The JSON API: its routes (``/api/...``), and the OpenAPI document that describes them.

May import: ``live``, ``play``, ``group``, ``table``, the edge, the store, the engine.
"""
