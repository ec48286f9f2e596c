"""The import contracts in pyproject.toml hold: the floor's layers, pure engines, the ledger at
the bottom, a casino domain that knows nothing of tables, a product that never imports the bench
(where the detectors' cheats live), and no import cycle anywhere.

``deploy/scripts/test`` runs ``lint-imports`` as its own step; this runs the same contracts in
pytest, so a cycle or an upward import fails the suite with import-linter's explanation.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_import_contract_is_kept() -> None:
    lint_imports = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run(
        [str(lint_imports), "--no-cache"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    # The contracts this suite relies on are configured and were checked.
    assert "Floor layers" in result.stdout
    assert "No import cycles" in result.stdout
    assert "The product knows nothing of the bench KEPT" in result.stdout
