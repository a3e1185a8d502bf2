"""REST API routes."""

app_name = "api"
urlpatterns: list = []
