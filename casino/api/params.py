"""Transitional: ``tables/api/audit_views.py`` still imports the day check from here.

Days and moments are read in ``casino.days`` (one parser); delete this module once that view
imports ``casino.days.parse_day`` instead.
"""

from casino.days import require_supported_day

__all__ = ["require_supported_day"]
