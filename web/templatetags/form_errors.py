"""``{% load form_errors %}``: the fields of a form that have errors, for its error summary.

``templates/workspace/_form_errors.html`` lists them as links to the fields, inside a
``role="alert"`` box, so that a screen reader announces that the form was refused and a
keyboard user can jump to each field (whose message is tied to it by aria-describedby).
"""

from __future__ import annotations

from typing import Any

from django import forms, template

register = template.Library()


@register.filter
def fields_with_errors(form: Any) -> list[forms.BoundField]:
    """The visible fields of ``form`` that have an error, in the form's order."""
    if not isinstance(form, forms.BaseForm):
        return []
    return [field for field in form.visible_fields() if field.errors]
