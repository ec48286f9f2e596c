"""The django-hordak side of the ledger benchmark; runs only under ``.bench-venv/bin/python``.

    python -m bench.hordak_project.run migrate
    python -m bench.hordak_project.run cell '{"scenario": "hot-4", "mode": "hot", "workers": 4, ...}'
    python -m bench.hordak_project.run count
    python -m bench.hordak_project.run statements

Each command prints one JSON object on its last stdout line, which bench.ledger_bench reads.
The transfer is hordak's documented shortcut ``Account.transfer_to(to_account, Money)``: one
``Transaction`` and two ``Leg`` rows (a credit on the sender, a debit on the receiver) in one
database transaction, checked by hordak's deferred ``check_leg`` trigger at commit.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Any

from bench.harness import run_workers

SETTINGS = "bench.hordak_project.settings"


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", SETTINGS)
    import django

    django.setup()


def account_names(scenario: str, mode: str, index: int) -> tuple[str, str]:
    own = f"b:{scenario}:w{index}"
    partner = f"b:{scenario}:house" if mode == "hot" else f"b:{scenario}:w{index}:peer"
    return own, partner


def hordak_worker(index: int, params: dict[str, Any]) -> Callable[[int], None]:
    """Factory for bench.harness: moves 1.00 EUR back and forth between its two accounts."""
    _setup()
    from django.db import connection
    from djmoney.money import Money
    from hordak.models import Account

    own_name, partner_name = account_names(params["scenario"], params["mode"], index)
    own = Account.objects.get(name=own_name)
    partner = Account.objects.get(name=partner_name)
    amount = Money("1.00", "EUR")

    def op(i: int) -> None:
        # transfer_to credits self and debits to_account; alternate so neither side drifts.
        if i % 2 == 0:
            own.transfer_to(partner, amount, description="bench")
        else:
            partner.transfer_to(own, amount, description="bench")

    op.backend_pid = connection.connection.info.backend_pid  # type: ignore[attr-defined]
    return op


def _create_accounts(scenario: str, mode: str, workers: int) -> None:
    """Created here, once, before the workers start: concurrent MPTT root inserts race on tree_id."""
    from hordak.models import Account, AccountType

    names: list[str] = []
    for index in range(workers):
        for name in account_names(scenario, mode, index):
            if name not in names:
                names.append(name)
    for name in names:
        if not Account.objects.filter(name=name).exists():
            Account.objects.create(name=name, type=AccountType.asset, currencies=["EUR"])


def main(argv: list[str]) -> int:
    command = argv[0] if argv else ""
    _setup()
    if command == "migrate":
        from django.core.management import call_command

        call_command("migrate", verbosity=0, interactive=False)
        result: dict[str, Any] = {"ok": True}
    elif command == "cell":
        spec = json.loads(argv[1])
        _create_accounts(spec["scenario"], spec["mode"], spec["workers"])
        result = run_workers(
            "bench.hordak_project.run:hordak_worker",
            workers=spec["workers"],
            params={"scenario": spec["scenario"], "mode": spec["mode"]},
            duration=spec["duration"],
            warmup=spec["warmup"],
        )
    elif command == "statements":
        from django.db import connection
        from django.test.utils import CaptureQueriesContext
        from djmoney.money import Money
        from hordak.models import Account, AccountType

        one = Account.objects.create(name="b:statements:a", type=AccountType.asset, currencies=["EUR"])
        two = Account.objects.create(name="b:statements:b", type=AccountType.asset, currencies=["EUR"])
        one.transfer_to(two, Money("1.00", "EUR"), description="bench-statements")
        with CaptureQueriesContext(connection) as captured:
            two.transfer_to(one, Money("1.00", "EUR"), description="bench-statements")
        result = {"statements": [query["sql"] for query in captured.captured_queries]}
    elif command == "count":
        from django.db import connection

        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM hordak_transaction WHERE description = 'bench'")
            transactions = cursor.fetchone()[0]
            cursor.execute(
                "SELECT count(*), count(*) FILTER (WHERE debit IS NOT NULL), "
                "coalesce(sum(coalesce(debit, 0) - coalesce(credit, 0)), 0)::text FROM hordak_leg"
            )
            legs, debit_legs, net = cursor.fetchone()
        result = {"transactions": transactions, "legs": legs, "debit_legs": debit_legs, "net": net}
    else:
        print(__doc__, file=sys.stderr)
        return 2
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
