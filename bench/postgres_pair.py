"""A PostgreSQL primary of its own and its streaming replica, for the bench and the tests.

The machine's cluster (127.0.0.1:5432) is shared and cannot stream to a replica without a
"replication" line in its pg_hba.conf, and it is never reconfigured: so a bench or a test that
needs a real replica makes a primary with ``deploy/scripts/make-primary`` and its replica with
``deploy/scripts/make-replica`` (``pg_basebackup``), each on a free port, in a temporary folder,
and stops both and removes the folder at the end. Run as root, the clusters belong to the
``postgres`` user (PostgreSQL refuses root).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg

from bench.harness import children_of

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "deploy" / "scripts"
OWNER = os.environ.get("PG_OS_USER") or ("postgres" if os.geteuid() == 0 else "")
START_TIMEOUT = 120.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_programs() -> Path:
    """The newest installed PostgreSQL's server programs (``PG_BIN``: others), as make-primary picks."""
    if os.environ.get("PG_BIN"):
        return Path(os.environ["PG_BIN"])
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name))
    if not found:
        raise RuntimeError("PostgreSQL's server programs are missing: run deploy/scripts/setup")
    return found[-1]


def _as_owner(command: list[str]) -> list[str]:
    return ["runuser", "-u", OWNER, "--", *command] if OWNER and os.geteuid() == 0 else command


class PostgresPair:
    """A primary and its replica on 127.0.0.1 (see the module docstring); ``start`` makes both."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="casekeeper-pg-"))
        self.root.chmod(0o755)  # the clusters' owner reaches its data directories through it
        self.primary_dir, self.replica_dir = self.root / "primary", self.root / "replica"
        self.primary_port, self.replica_port = free_port(), free_port()
        self.started = False

    def primary_url(self, database: str = "postgres") -> str:
        return f"postgres://root@127.0.0.1:{self.primary_port}/{database}"

    def replica_url(self, database: str = "postgres") -> str:
        return f"postgres://root@127.0.0.1:{self.replica_port}/{database}"

    def _script(self, *args: str) -> None:
        done = subprocess.run(
            ["bash", *args], capture_output=True, text=True, timeout=START_TIMEOUT, check=False
        )
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(args)} failed:\n{done.stdout}{done.stderr}")

    def start(self) -> None:
        self.started = True
        self._script(str(SCRIPTS / "make-primary"), str(self.primary_dir), str(self.primary_port))
        self._script(
            str(SCRIPTS / "make-replica"),
            str(self.replica_dir),
            str(self.replica_port),
            self.primary_url(),
        )

    def _pg_ctl(self, directory: Path, *args: str) -> None:
        command = [str(server_programs() / "pg_ctl"), "-D", str(directory), *args]
        subprocess.run(_as_owner(command), capture_output=True, timeout=START_TIMEOUT, check=True)

    def stop_replica(self) -> None:
        """The replica shut down (fast: its sessions are ended), as a host going away would."""
        self._pg_ctl(self.replica_dir, "stop", "-m", "fast", "-w")

    def start_replica(self) -> None:
        """The replica started again; it catches up from the primary's WAL (``wal_keep_size``)."""
        self._pg_ctl(self.replica_dir, "start", "-w", "-l", f"{self.replica_dir}.log")
        self.wait_until_streaming()

    def stop(self) -> None:
        """Both stopped (whatever state they are in) and the folder removed."""
        if self.started:
            for directory in (self.replica_dir, self.primary_dir):
                if (directory / "postmaster.pid").exists():
                    with contextlib.suppress(subprocess.SubprocessError):
                        self._pg_ctl(directory, "stop", "-m", "immediate", "-w")
        shutil.rmtree(self.root, ignore_errors=True)

    # ------------------------------------------------------------------ the replica's replay

    def on_replica(self, sql: str) -> object:
        with psycopg.connect(self.replica_url(), autocommit=True, connect_timeout=5) as conn:
            row = conn.execute(sql.encode()).fetchone()
        return row[0] if row else None

    def pause_replay(self) -> None:
        """Replay stops; WAL is still received, so the replica falls behind the primary."""
        self.on_replica("SELECT pg_wal_replay_pause()")

    def resume_replay(self) -> None:
        self.on_replica("SELECT pg_wal_replay_resume()")

    def wait_until_streaming(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while self.on_replica("SELECT status FROM pg_stat_wal_receiver") != "streaming":
            if time.monotonic() > deadline:
                raise RuntimeError(f"the replica is not streaming; see {self.replica_dir}.log")
            time.sleep(0.05)

    def wait_for_replay(self, timeout: float = 60.0) -> None:
        """Until the replica has replayed everything the primary has written so far."""
        with psycopg.connect(self.primary_url(), autocommit=True) as conn:
            row = conn.execute("SELECT pg_current_wal_insert_lsn()::text").fetchone()
        target = row[0] if row else "0/0"
        deadline = time.monotonic() + timeout
        sql = f"SELECT pg_last_wal_replay_lsn() >= '{target}'::pg_lsn"
        while not self.on_replica(sql):
            if time.monotonic() > deadline:
                raise RuntimeError(f"the replica did not replay to {target} within {timeout:.0f} s")
            time.sleep(0.05)

    def process_ids(self, replica: bool = False) -> list[int]:
        """The cluster's processes (its postmaster and every child), to read their CPU time."""
        directory = self.replica_dir if replica else self.primary_dir
        try:
            leader = int((directory / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return []
        return [leader, *children_of(leader)]


@contextlib.contextmanager
def postgres_pair() -> Iterator[PostgresPair]:
    """A started ``PostgresPair``, stopped and removed at the end whatever happened."""
    pair = PostgresPair()
    try:
        pair.start()
        yield pair
    finally:
        pair.stop()
