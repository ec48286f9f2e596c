"""A tap's answer writes its URLs without a ``reverse`` per form (issue 22): the URLs are still
Django's own, following the script prefix."""

from __future__ import annotations

from django.urls import get_script_prefix, reverse, set_script_prefix

from tables.console.paths import path_to, per_table


def test_a_kept_path_is_djangos_own_and_follows_the_script_prefix() -> None:
    assert path_to("console:faro", 3, 41, "turn") == reverse("console:faro", args=[3, 41, "turn"])
    assert path_to("console:faro", 3, 41, "bet") == "/console/tables/3/rounds/41/faro/bet/"
    before = get_script_prefix()
    set_script_prefix("/casino/")
    try:
        assert path_to("console:faro", 3, 41, "turn") == "/casino/console/tables/3/rounds/41/faro/turn/"
    finally:
        set_script_prefix(before)
    assert path_to("console:faro", 3, 41, "turn") == "/console/tables/3/rounds/41/faro/turn/"


def test_a_per_table_path_puts_each_id_where_reverse_does() -> None:
    to_tray = per_table("pit:tray")
    assert [to_tray(table) for table in (1, 22, 987)] == [reverse("pit:tray", args=[t]) for t in (1, 22, 987)]
