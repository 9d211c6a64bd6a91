"""The groups and their memory in the database: which group a request belongs to, finished
games kept with their summaries, the history, statistics and ratings pages' data, a game's
story, the chance to win, and a group's data taken away or deleted.

May import: the engine, memory, the store, the edge and ``table`` (to read a game).
"""
