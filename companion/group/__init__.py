"""The group's memory in the database: finished games kept with their summaries, the
history, statistics and ratings pages' data, a game's story and the chance to win.

May import: the engine, memory, the store, the edge and ``table`` (to read a game).
"""
