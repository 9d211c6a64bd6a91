"""Live push: a channel per table, the hub of open streams, the deltas between two views
and the fan-out between processes over PostgreSQL's LISTEN/NOTIFY.

May import: ``play`` (to load a table), ``table``, the edge, the store, the engine.
"""
