"""A table read: its state derived from its events (cached per version), what each screen
is sent (the view, its words and taps) and the intel cards seen.

May import: the engine, the store, the edge. Never writes a table (that is ``play``).
"""
