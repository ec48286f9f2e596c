"""The throwaway databases and the Django set-up that every benchmark shares.

Each bench builds its data in a database of its own on ``BENCH_SERVER_URL``'s PostgreSQL server,
migrates it, runs the app against it with bench-only settings and drops it at the end. Each bench
module used to carry its own copy of these helpers; here the places where the benches really
differ (the database, a label for the throwaway SECRET_KEY, extra environment entries) are
parameters, so a fix or a new setting reaches every bench at once. Django is imported only inside
the functions that set it up, so a bench's orchestrating process can stay free of it.
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import platform
import socket
import subprocess
import sys
import time
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg

ROOT = Path(__file__).resolve().parent.parent
SERVER_URL = os.environ.get("BENCH_SERVER_URL", "postgres://root@127.0.0.1:5432")
SETTINGS = "casino.settings.local"


def db_url(name: str) -> str:
    """The URL of database ``name`` on the bench's PostgreSQL server."""
    parts = urlsplit(SERVER_URL)
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", "", ""))


def log(message: str) -> None:
    """Progress goes to stderr with the time, so stdout carries the report alone."""
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- the server


def admin(*statements: str, database: str = "postgres") -> None:
    """Run ``statements`` in autocommit: CREATE and DROP DATABASE refuse to run inside a transaction."""
    with psycopg.connect(db_url(database), autocommit=True) as conn:
        for sql in statements:
            conn.execute(sql.encode())  # bytes: psycopg's signature takes only literal strings


def database_exists(name: str) -> bool:
    with psycopg.connect(db_url("postgres"), autocommit=True) as conn:
        return conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is not None


def drop_database(name: str) -> None:
    """Drop ``name`` if it exists, closing whatever connections it still has."""
    admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def create_database(name: str, *, template: str | None = None, synchronous_commit: bool = True) -> None:
    """``name`` made afresh (an older one dropped first): empty, or a copy of ``template``.

    ``synchronous_commit=False`` spares commits the fsync wait; bench data can be lost in a crash.
    """
    drop_database(name)
    admin(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
    if not synchronous_commit:
        admin(f'ALTER DATABASE "{name}" SET synchronous_commit = off')


def migrate(env: Mapping[str, str], *, timeout: float | None = None) -> None:
    """The project's migrations, in a child process whose environment is this one's plus ``env``."""
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--verbosity", "0", "--no-input"],
        cwd=ROOT,
        env={**os.environ, **env},
        check=True,
        timeout=timeout,
    )


def run_captured(
    command: list[str], *, timeout: float, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``command`` run in the project folder, its output kept as text: the caller reads its exit
    status and output (a failed Django step or ping is reported, not raised)."""
    return subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


def backends(database: str) -> list[int]:
    """Process ids of the PostgreSQL backends connected to ``database``, to read their CPU time."""
    with psycopg.connect(db_url("postgres")) as conn:
        rows = conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s", (database,)).fetchall()
    return [int(row[0]) for row in rows]


def server_version() -> str:
    with psycopg.connect(db_url("postgres")) as conn:
        row = conn.execute("SHOW server_version").fetchone()
    return str(row[0]) if row else "?"


def describe_machine() -> str:
    """When and on what a run happened, for a report's first lines."""
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    now = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (
        f"{now} · {os.cpu_count()} CPUs, Python {platform.python_version()} · PostgreSQL "
        f"{server_version()} · load average before the run: {load}"
    )


# --------------------------------------------------------------------------- the app


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on now, for a bench's own app server."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def app_env(url: str, **extra: str) -> dict[str, str]:
    """The variables the app needs in a bench: local settings on ``url``'s database, DEBUG off.

    ``extra`` adds a bench's own (SECRET_KEY, ALLOWED_HOSTS, broker ...). The result holds only
    these, not ``os.environ``: a child process needs both, ``setup_django`` only these.
    """
    return {"DJANGO_SETTINGS_MODULE": SETTINGS, "DATABASE_URL": url, "DEBUG": "false", **extra}


def served_env(database: str, *, label: str, **extra: str) -> dict[str, str]:
    """``app_env`` for a bench that serves the app with gunicorn on 127.0.0.1 (``label``: the bench)."""
    return app_env(
        db_url(database),
        ALLOWED_HOSTS="127.0.0.1",
        SECRET_KEY=f"bench-{label}-not-a-secret-0123456789-abcdefghijklmnopqrstuvwxyz",
        LOG_LEVEL="WARNING",
        PYTHONPATH=str(ROOT),
        **extra,
    )


def in_process_env(database: str, *, label: str) -> dict[str, str]:
    """``app_env`` for a bench that drives the app in its own process (Django's test client).

    Celery's broker is in memory and nothing consumes it, so no task runs while the bench builds
    its data; ``testserver`` is the test client's host.
    """
    return app_env(
        db_url(database),
        SECRET_KEY=f"{label}-bench-only-not-a-secret-0123456789abcdef",
        CELERY_BROKER_URL="memory://",
        CELERY_RESULT_BACKEND="cache+memory://",
        LOG_LEVEL="WARNING",
        ALLOWED_HOSTS="testserver,127.0.0.1,localhost",
        PYTHONPATH=str(ROOT),
    )


def fresh_database(
    name: str, env: Mapping[str, str], *, synchronous_commit: bool = False, timeout: float | None = None
) -> None:
    """``name`` dropped, created and migrated with ``env``; by default without fsync waits on commit
    (data built in process), kept by a bench whose figures include commits (``synchronous_commit``)."""
    create_database(name, synchronous_commit=synchronous_commit)
    migrate(env, timeout=timeout)


def setup_django(env: Mapping[str, str], *, in_process: bool = False) -> None:
    """Django set up in this process with ``env`` (from ``app_env``) in its environment.

    ``in_process``: the bench makes its data through the services here and calls the app through
    the test client, so creating hundreds of players must not spend minutes in PBKDF2 (nothing
    signs in with their passwords), the unconsumed in-memory broker's kombu chatter is silenced,
    and whitenoise's warning about the missing collectstatic directory is dropped.
    """
    os.environ.update(env)
    import django

    django.setup()
    if not in_process:
        return
    from django.conf import settings

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    logging.getLogger("kombu").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", message="No directory at")


def staff(username: str, role: str) -> Any:
    """The staff user ``username`` (made with ``role`` and no usable password if it is new)."""
    from casino.models import User

    user = User.objects.filter(username=username).first()
    if user is None:
        user = User(username=username, role=role, name=username.replace("-", " ").title())
        user.set_unusable_password()
        user.save()
    return user


def funded_player(
    cashier: Any, *, username: str, name: str, amount: int, password: str = "bench-password-1"
) -> Any:
    """A player made and bought in for ``amount`` through the cage's services, as at the cage
    (``password``: a bench whose clients sign in gives its own)."""
    from casino.services import buy_in, create_player

    player = create_player(actor=cashier, username=username, password=password, name=name)
    identify(cashier, player)
    buy_in(actor=cashier, player=player, amount=amount)
    return player


def identify(cashier: Any, player: Any) -> None:
    """An ID on file for a bench's player, so a bankroll past the CTR line is not refused
    (``casino.cash``): the cage has seen the regulars' IDs."""
    import datetime as dt

    from casino.cash.services import record_identification

    record_identification(
        actor=cashier,
        player=player,
        kind="drivers_license",
        number=f"BENCH-{player.pk}",
        name=player.name,
        birth_date=dt.date(1980, 1, 1),
        address="1 Bench Street, Las Vegas NV",
    )


def open_faro_table(index: int, *, boss: Any, opening: int) -> tuple[Any, Any]:
    """Table ``index`` of a bench's Faro floor, made, given its own dealer and opened with ``opening``
    cents in its tray through the services; returns (table, dealer)."""
    from casino.models import Role
    from tables import services

    dealer = staff(f"bench-dealer-{index}", Role.DEALER)
    table = services.create_table(
        actor=boss, name=f"Bench Faro {index:03d}", game="faro", min_bet=500, max_bet=50_000
    )
    services.assign_dealer(actor=boss, table_id=table.pk, dealer_id=dealer.pk)
    services.open_table(actor=dealer, table_id=table.pk, opening_inventory=opening)
    return table, dealer
