"""The outbox in the operator's console: read-only, for superusers (what was sent, what
waits and why), never for organisers (the rows name other people's accounts)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from notifications.models import Message, WebhookDelivery


class ReadOnlyForOperators(admin.ModelAdmin):
    """Listed and opened by superusers only; nothing added, changed or deleted here."""

    def has_module_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.is_active and request.user.is_superuser)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self.has_module_permission(request)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Message)
class MessageAdmin(ReadOnlyForOperators):
    list_display = ["created_at", "kind", "user", "league", "status", "attempts", "sent_at"]
    list_filter = ["status", "topic", "kind"]
    search_fields = ["dedupe_key", "message_id"]


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(ReadOnlyForOperators):
    list_display = ["created_at", "league", "kind", "status", "attempts", "response_status"]
    list_filter = ["status", "kind"]
