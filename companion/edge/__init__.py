"""The HTTP edge: which hosts and origins are answered, per-client limits, refusals as HTTP,
request fields, languages, compression, the static files' version, time zones.

May import: the engine (words, errors) and itself; never a table, the group or the store.
"""
