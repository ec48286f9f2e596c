"""The Swagger UI page, under its own Content-Security-Policy.

Swagger UI's files come from drf-spectacular-sidecar (``SWAGGER_UI_DIST = "SIDECAR"``), that is
from our own static files, so the docs work on a floor with no internet and the page needs no
other host. The site's policy (``SECURE_CSP``) holds, except that the page's template carries
an inline ``<style>``; its init script is served as a separate file by the split view, so even
here no inline script runs.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import cast

from django.conf import settings
from django.utils.csp import CSP
from django.views.decorators.csp import csp_override
from drf_spectacular.views import SpectacularSwaggerSplitView


def docs_policy() -> dict[str, Collection[str] | str]:
    """The site policy, plus inline styles (the Swagger UI template's ``<style>`` block)."""
    site = cast(Mapping[str, Collection[str] | str], settings.SECURE_CSP)
    return {**site, "style-src": [CSP.SELF, CSP.UNSAFE_INLINE]}


docs_view = csp_override(docs_policy())(SpectacularSwaggerSplitView.as_view(url_name="schema"))
