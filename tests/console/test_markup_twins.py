"""The fragments written in Python for speed (``faro_rows``, the pit's cards and charts) write what
their template twins (``bench/markup/``) write, byte for byte, with names that need escaping: so
``bench/run-markup`` times the same markup both ways, and the Python escapes as a template does."""

from __future__ import annotations

import pytest

from bench.markup_bench import faro_data, floor_data, fragments


@pytest.mark.parametrize("index", range(12))
def test_a_python_fragment_writes_what_its_template_twin_writes(index: int) -> None:
    name, items, python, template = fragments(faro_data(20), floor_data(3))[index]
    assert items > 0, name
    written = python()
    assert written == template(), name
    for raw in ("<Masterson>", "O'Holliday", "Faro <", "Table <", "Relief <"):  # every name is escaped
        assert raw not in written, (name, raw)
