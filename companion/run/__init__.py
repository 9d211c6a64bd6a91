"""Running the companion: the command's ``serve`` (instance, address, QR code, workers), the
event-loop server, worker processes, garbage-collector freezing, pacing, backup and restore.

May import: everything (it sits on top: ``web``'s factory and what it serves).
"""
