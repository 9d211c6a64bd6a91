"""The rules at hand: the help texts, data a translator edits (``<locale>.json`` beside this
file), and the look-ups over them (by rule id, rank, phase, or a question typed by a player).

May import: nothing of the companion (plain Python over the data files).
"""
