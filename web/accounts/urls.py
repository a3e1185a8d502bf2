"""Account pages, under ``/accounts/`` ("accounts" is a reserved league slug), and a
league's page for asking to join it."""

from django.urls import path

from web.accounts import password_reset, views

app_name = "accounts"
urlpatterns = [
    path("accounts/", views.home, name="home"),
    path("accounts/sign-in/", views.sign_in, name="sign_in"),
    path("accounts/sign-in/link/", views.request_link, name="request_link"),
    path("accounts/sign-in/link/sent/", views.link_sent, name="link_sent"),
    path("accounts/sign-in/link/<str:token>/", views.link_sign_in, name="link_sign_in"),
    path(
        "accounts/password-reset/",
        password_reset.PasswordResetView.as_view(),
        name="password_reset",
    ),
    path(
        "accounts/password-reset/sent/",
        password_reset.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "accounts/password-reset/<uidb64>/<token>/",
        password_reset.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "accounts/password-reset/done/",
        password_reset.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    path("accounts/privacy/", views.privacy, name="privacy"),
    path("accounts/privacy/my-data.json", views.privacy_export, name="privacy_export"),
    path("accounts/players/<int:player_id>/leave/", views.leave, name="leave"),
    path("<slug:league_slug>/join/", views.join, name="join"),
]
