"""The write side: leagues, players, the append-only event store and its services."""
