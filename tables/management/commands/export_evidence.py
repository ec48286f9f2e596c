"""Write a gaming day's evidence to files: what ``python -m ledger.verify`` reads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from casino import days
from casino.errors import DomainError
from tables.evidence import export
from tables.evidence.selectors import get_checkpoint, verify_command


class Command(BaseCommand):
    help = (
        "Write a closed gaming day's export (evidence-DATE.jsonl), its checkpoint (checkpoint-DATE.json) "
        "and the checkpoint before it, for python -m ledger.verify."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("day", help="the gaming day, YYYY-MM-DD")
        parser.add_argument("--to", default=".", help="the folder to write into (default: here)")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            day = days.parse_day(options["day"], field="day", code="bad_date")
            checkpoint = get_checkpoint(day=day)
        except DomainError as error:
            raise CommandError(error.message) from error
        folder = Path(options["to"])
        folder.mkdir(parents=True, exist_ok=True)
        with (folder / f"evidence-{day}.jsonl").open("w", encoding="utf-8") as out:
            for line in export.lines(day, checkpoint.document):
                out.write(line + "\n")
        written = [f"evidence-{day}.jsonl", _write(folder, checkpoint.gaming_day, checkpoint.document)]
        command = verify_command(day)
        if checkpoint.previous is not None:
            written.append(_write(folder, checkpoint.previous.gaming_day, checkpoint.previous.document))
            command += f" checkpoint-{checkpoint.previous.gaming_day}.json"
        self.stdout.write(f"Wrote {', '.join(written)} in {folder}. Verify with:\n  {command}")


def _write(folder: Path, day: Any, document: dict[str, Any]) -> str:
    name = f"checkpoint-{day}.json"
    (folder / name).write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return name
