"""The REST API (Django REST framework) over the league's events and derived standings."""
