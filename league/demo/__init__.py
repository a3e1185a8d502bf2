"""The demo league fixture (data only; see README.md and LICENSE here)."""
