"""The group's memory (issues 14, 21): what finished games leave behind, in plain Python
(no Flask, no database).

- :mod:`.summary`: what one finished game contributes (winner, reason, days, each side's
  figures), derived once from the referee's state when the game ends or is imported;
- :mod:`.stats`: the group's and a player's statistics over such summaries (the
  definition the database's aggregates in ``companion/group/history.py`` are tested
  against);
- :mod:`.ratings`: a rating per remembered player (openskill), teams included.

The web layer keeps the summaries beside each game's events (``game``, ``game_side``)
and answers the history, statistics and player pages from them with SQL.
"""
