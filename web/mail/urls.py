"""An account's e-mail: what it receives, and the one-click unsubscribe links."""

from django.urls import path

from web.mail import views

app_name = "mail"
urlpatterns = [
    path("accounts/notifications/", views.preferences, name="preferences"),
    path(
        "accounts/notifications/unsubscribe/<str:token>/",
        views.unsubscribe_view,
        name="unsubscribe",
    ),
]
