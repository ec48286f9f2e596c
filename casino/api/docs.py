"""The Swagger UI page, under its own Content-Security-Policy.

The site's policy (``SECURE_CSP``) allows scripts and styles from our static files only.
Swagger UI comes from drf-spectacular's CDN (``SWAGGER_UI_DIST``) and its page carries an
inline ``<style>``; its init script is served as a separate file by the split view, so even
here no inline script runs.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import cast
from urllib.parse import urlsplit

from django.conf import settings
from django.utils.csp import CSP
from django.views.decorators.csp import csp_override
from drf_spectacular.settings import spectacular_settings
from drf_spectacular.views import SpectacularSwaggerSplitView


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.netloc else ""


def docs_policy() -> dict[str, Collection[str] | str]:
    """The site policy, plus the Swagger UI's CDN for scripts, styles and images."""
    cdn = [origin] if (origin := _origin(str(spectacular_settings.SWAGGER_UI_DIST))) else []
    site = cast(Mapping[str, Collection[str] | str], settings.SECURE_CSP)
    return {
        **site,
        "script-src": [CSP.SELF, *cdn],
        "style-src": [CSP.SELF, CSP.UNSAFE_INLINE, *cdn],
        "img-src": [CSP.SELF, "data:", *cdn],
    }


docs_view = csp_override(docs_policy())(SpectacularSwaggerSplitView.as_view(url_name="schema"))
