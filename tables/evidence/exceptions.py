"""System exceptions (25 CFR 543.16(c)): the action log's entries of a day that change how the
floor runs or undo what was recorded, each with who and when.

They are read off the action log, which every one of them already writes in the transaction of
the change (and which is hashed as it is written), so there is no second record to keep in step.
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db.models import CharField, Q, QuerySet
from django.db.models.functions import Abs, Cast

from casino.models import ActionLog
from ledger.gaming_day import gaming_day_bounds
from tables.slips.models import Slip

# The kind an exception is listed as, by its action (or the start of it).
KINDS: tuple[tuple[str, str], ...] = (
    ("table.limits_changed", "limit_change"),
    ("credit_line.set", "limit_change"),
    ("admin.", "setting_change"),
    ("correction.", "correction"),
    ("slip.void", "slip_voided"),
    ("sign_in.locked_out", "lockout"),
    ("sign_in.unlocked", "unlock"),
    ("staff.role_changed", "role_change"),
    ("user.credentials_revoked", "credentials_revoked"),
    ("slip.sign", "variance_sign_off"),
    ("table.closed", "variance_sign_off"),
)


PEOPLE = ["sign_in.locked_out", "sign_in.unlocked", "staff.role_changed", "user.credentials_revoked"]


def kind_of(action: str) -> str:
    return next(kind for prefix, kind in KINDS if action.startswith(prefix))


def _variance_slips() -> QuerySet[Slip]:
    """Slips whose count is off the ledger by more than a pit boss may sign without a note."""
    return Slip.objects.annotate(off=Abs("variance")).filter(off__gt=settings.COUNT_VARIANCE_NOTE)


def list_exceptions(*, day: dt.date) -> QuerySet[ActionLog]:
    start, end = gaming_day_bounds(day)
    slip_ids = _variance_slips().annotate(text_id=Cast("id", CharField())).values("text_id")
    listed = (
        Q(action="table.limits_changed")
        | Q(action="credit_line.set")
        | Q(action__startswith="admin.")
        | Q(action__startswith="correction.")
        | Q(action__startswith="slip.void")
        | Q(action__in=PEOPLE)
        | Q(action="slip.sign", object_type="slip", object_id__in=slip_ids)
        | (Q(action="table.closed") & ~Q(data__variance=0) & ~Q(data__variance=None))
    )
    return ActionLog.objects.filter(listed, at__gte=start, at__lt=end).select_related("actor")
