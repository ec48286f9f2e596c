"""The Casekeeper Django project: settings, URLs, the Celery app and the floor's domain."""

from casino.celery import app as celery_app

__all__ = ("celery_app",)
