"""``{% load form_errors %}``: the fields of a form that have errors, for its error summary.

``templates/workspace/_form_errors.html`` lists them as links to the fields, inside a
``role="alert"`` box, so that a screen reader announces that the form was refused and a
keyboard user can jump to each field (whose message is tied to it by aria-describedby).
"""

from __future__ import annotations

from typing import Any

from django import forms, template
from django.utils.html import format_html

register = template.Library()


@register.filter
def fields_with_errors(form: Any) -> list[forms.BoundField]:
    """The visible fields of ``form`` that have an error, in the form's order."""
    if not isinstance(form, forms.BaseForm):
        return []
    return [field for field in form.visible_fields() if field.errors]


def _field_id(parts: tuple[Any, ...]) -> str:
    return "".join(str(part) for part in parts)


@register.simple_tag
def error_attrs(errors: Any, *parts: Any) -> str:
    """For a form whose errors are a mapping of field id to messages (not a Django form):
    ``aria-invalid`` and ``aria-describedby`` naming the message, when the field whose id is
    ``parts`` joined has an error; nothing otherwise."""
    field_id = _field_id(parts)
    if not errors or not errors.get(field_id):
        return ""
    return format_html(' aria-invalid="true" aria-describedby="{}_error"', field_id)


@register.simple_tag
def error_text(errors: Any, *parts: Any) -> str:
    """The messages of that field, under it, with the id ``error_attrs`` names."""
    field_id = _field_id(parts)
    found = errors.get(field_id) if errors else None
    if not found:
        return ""
    return format_html('<p class="error" id="{}_error">{}</p>', field_id, " ".join(found))
