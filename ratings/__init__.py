"""The read side: the Glicko-2 engine, replays, projections and selectors.

Everything stored by this app is derived from the event store and can be rebuilt.
"""
