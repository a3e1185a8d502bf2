"""Seasons on the read side: a season's table derived from the log, archived, read back.

``derive`` computes a table from the event log and the continuous rating, ``archive``
stores it when a season closes (and again when an organiser re-derives it), ``read`` gives
the pages, the API and the CSV export the table to show: the newest stored one for a closed
season, a freshly derived one for a season still open.
"""
