"""The organisers' workspace: one hub per league linking every organiser task.

Organiser pages are ordinary views guarded by :func:`web.workspace.access.organiser_league`
(only the league's organisers and superusers; anonymous visitors are sent to sign in). Each task
registers itself as a :class:`~web.workspace.sections.Section` so the hub and the side
navigation list it in one place.
"""
