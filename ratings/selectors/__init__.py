"""Read-side queries for the pages, the API and the exports: plain dataclasses, no model instances.

One module per read model; callers import from the module that holds what they use:

- ``standings``: the leaderboard (current or as of a period, one page or every row in one
  pass), the home page's featured leaderboards, a player's rank history and the comparison
  of two configuration versions.
- ``players``: a player's summary, rating history, results and head-to-head records.
- ``configurations``: the live configuration, configuration versions, replays, whether a
  version's standings are ready, and the periods offered to pickers.
- ``progress``: a league's latest replay and how far it got (the progress banner, the API's
  progress endpoint, ``manage.py replay``).
- ``common``: what they share: the 95% interval, periods as plain data, RD grown to "now"
  and ``ReadClock``, the current period of a configuration computed once per request.

Reads of the event log that need no rating (the match list, the event log) live beside the
write side, in ``league.event_log``, with ``Page``, the page of any list.

Idle RD growth is lazy: a player's RD "now" is their stored RD grown to the current period
(in progress, as if it closed now) with the engine's ``grown_rd``, so these numbers agree
with a replay to the last bit.
"""
