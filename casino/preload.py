"""What a server loads before its workers take requests, so a new worker answers at once.

On the first request a process serves, Django imports the URL configuration (and with it every
view module: the audit's charts bring in matplotlib) and builds its table of URL names; it
compiles each template the first time a page uses it. gunicorn's master imports the app before
it forks (``preload_app``), but not those, so every worker it forked paid for them on its first
request: about 0.6 s on the 2-core bench machine (``bench/run-first-answer``), and
``max_requests`` replaces each worker every few thousand requests all night.

``deploy/gunicorn.conf.py`` calls ``load_for_workers`` in the master, once, before the first
fork; the workers share these pages with it. Each worker then opens its database connection
(``connect_database``) before its first request: a connection is a PostgreSQL backend of its
own, which cannot be made before the fork.
"""

from __future__ import annotations

import logging
from pathlib import Path

from django.conf import settings
from django.db import DatabaseError, connection
from django.template import TemplateSyntaxError, engines
from django.template.utils import get_app_template_dirs
from django.urls import get_resolver

logger = logging.getLogger(__name__)


def project_templates() -> list[str]:
    """The names of the project's own templates (not Django's or a library's)."""
    root = Path(settings.BASE_DIR).resolve()
    names: set[str] = set()
    for folder in get_app_template_dirs("templates"):
        folder = Path(folder).resolve()
        if root in folder.parents and ".venv" not in folder.parts:
            names.update(str(path.relative_to(folder)) for path in folder.rglob("*.html"))
    return sorted(names)


def load_for_workers() -> int:
    """Import the URL configuration, build its names and compile the project's templates; how
    many templates compiled.

    A template that does not compile is logged and left for its page to report, as it would be
    without this: a server still starts.
    """
    resolver = get_resolver()
    resolver.url_patterns  # noqa: B018 (a lazy property: reading it imports every view)
    resolver.reverse_dict  # noqa: B018 (what the first ``reverse`` or ``{% url %}`` would build)
    engine = engines["django"]
    compiled = 0
    for name in project_templates():
        try:
            engine.get_template(name)
        except TemplateSyntaxError:
            logger.exception("template %s does not compile", name)
        else:
            compiled += 1
    return compiled


def connect_database() -> bool:
    """Open this process's database connection now (kept for ``CONN_MAX_AGE``, as a request's
    is). When the database cannot be reached (``DB_CONNECT_TIMEOUT``), the first request finds
    out and answers 503 (``casino.error_pages``), as it would without this: a worker still boots.
    """
    try:
        connection.ensure_connection()
    except DatabaseError:
        logger.warning("the database could not be reached; the first request will try again")
        return False
    return True
