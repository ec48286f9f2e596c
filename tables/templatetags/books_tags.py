"""The link to the slips waiting for the signed-in person, with how many there are, for the pit's
and the cage's screens (``tables.console.books``)."""

from __future__ import annotations

from django import template
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from casino.permissions import actor_of
from tables.console.books.rows import waiting_for

register = template.Library()


@register.simple_tag(takes_context=True)
def slips_to_sign(context: template.Context, url_name: str, words: str) -> SafeString:
    waiting = len(waiting_for(actor_of(context["request"])))
    return format_html(
        '<a class="btn count{}" href="{}" data-testid="slips-link">{} <span class="n">{}</span></a>',
        " some" if waiting else "",
        reverse(url_name),
        words,
        waiting,
    )
