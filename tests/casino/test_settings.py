"""casino/settings/: one module per concern, assembled by ``base`` with star imports.

The star imports make order matter only if two modules set the same name, so none may; and
every concern's names must reach ``django.conf.settings`` unchanged.
"""

from __future__ import annotations

import ast
import importlib
from itertools import combinations
from pathlib import Path

import pytest
from django.conf import settings

SETTINGS_DIR = Path(__file__).resolve().parents[2] / "casino" / "settings"
CONCERNS = ["environment", "security", "audit", "books", "detection", "celery", "evidence"]


def _names_set_in(module: str) -> set[str]:
    """Upper-case names a module assigns at its top level (not keys it sets inside a dict)."""
    tree = ast.parse((SETTINGS_DIR / f"{module}.py").read_text())
    names: set[str] = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        names |= {t.id for t in targets if isinstance(t, ast.Name) and t.id.isupper()}
    return names


def test_no_setting_is_set_in_two_modules() -> None:
    modules = ["base", *CONCERNS]
    for one, other in combinations(modules, 2):
        assert not _names_set_in(one) & _names_set_in(other), (one, other)


@pytest.mark.parametrize("concern", CONCERNS)
def test_each_concern_reaches_the_settings_unchanged(concern: str) -> None:
    module = importlib.import_module(f"casino.settings.{concern}")
    names = _names_set_in(concern)
    assert names
    for name in names:
        assert getattr(settings, name) == getattr(module, name), name
