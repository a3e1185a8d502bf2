"""Public pages (server-rendered)."""

app_name = "pages"
urlpatterns: list = []
