"""The report's shape is written once (tables.audit.report) and everything else follows it.

The OpenAPI schema of ``GET /api/v1/gaming-days/{date}/report`` must describe every field of
every TypedDict, with the same nullability and requiredness; the stored report's keys come back
in the TypedDicts' order; and the audit package imports in one direction (tasks → services →
runner, compute), so ``tables.audit.services`` never imports ``tables.audit.tasks``.
"""

from __future__ import annotations

import random
from typing import Any

import grimp
import pytest
from rest_framework.test import APIClient

from tables.audit import report as shape

REPORT_PATH = "/api/v1/gaming-days/{day}/report"


@pytest.fixture(scope="module")
def components() -> dict[str, Any]:
    response = APIClient().get("/api/v1/schema?format=json")
    assert response.status_code == 200
    schemas: dict[str, Any] = response.json()["components"]["schemas"]
    return schemas


def _resolve(node: dict[str, Any], components: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref") or (node.get("allOf") or [{}])[0].get("$ref")
    return components[ref.rsplit("/", 1)[1]] if ref else node


def _mismatches(
    typed: Any, component: dict[str, Any], components: dict[str, Any], path: str, *, optional: bool = False
) -> list[str]:
    """Every field of ``typed`` (recursively) that the schema component leaves out or gets wrong.

    ``optional``: the component has all of ``typed``'s fields optional (the report's sections,
    there only once the audit is done); below them requiredness is checked again.
    """
    problems: list[str] = []
    properties = component["properties"]
    required = set(component.get("required", []))
    for name, field in shape.fields_of(typed).items():
        where = f"{path}.{name}"
        if name not in properties:
            problems.append(f"{where}: not in the schema")
            continue
        node = properties[name]
        if bool(node.get("nullable")) != field.nullable:
            problems.append(f"{where}: nullable is {node.get('nullable')}, the shape says {field.nullable}")
        if (name in required) != (field.required and not optional):
            problems.append(f"{where}: required is {name in required}, the shape says {field.required}")
        rows = shape.row_type(field.hint)
        if rows is not None:
            inner = node["items"] if node.get("type") == "array" else node
            problems += _mismatches(rows, _resolve(inner, components), components, where)
    return problems


def test_the_schema_describes_every_field_of_the_report(components: dict[str, Any]) -> None:
    """The hand-written serializers left out ``tables[].variant``; generated ones cannot."""
    schema = APIClient().get("/api/v1/schema?format=json").json()
    ok = schema["paths"][REPORT_PATH]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    output = _resolve(ok, components)

    status_problems = _mismatches(shape.StatusData, output, components, "report")
    report_problems = [
        problem
        for problem in _mismatches(shape.ReportData, output, components, "report", optional=True)
        if not problem.startswith("report.gaming_day")  # the envelope's, a date
    ]

    assert status_problems + report_problems == []
    assert components["TableRow"]["properties"]["variant"] == {
        "type": "string",
        "nullable": True,
        "description": "the card-room game a stakes table deals (display name)",
    }


def test_the_schema_keeps_its_component_names_and_choices(components: dict[str, Any]) -> None:
    finding = components["Finding"]["properties"]
    assert finding["severity"] == {"$ref": "#/components/schemas/AuditSeverityEnum"}
    assert components["AuditSeverityEnum"]["enum"] == list(shape.SEVERITIES)
    assert components["Mtl"]["properties"]["at"] == {"type": "string", "format": "date-time"}
    assert components["Ctr"]["properties"]["directions"]["items"] == {
        "$ref": "#/components/schemas/AuditCashDirectionEnum"
    }
    summary = components["Summary"]
    assert "rounds_voided" in summary["properties"]
    assert "rounds_voided" not in summary["required"]  # absent from reports stored before it


def test_a_stored_report_comes_back_in_the_shapes_key_order() -> None:
    """jsonb stores keys its own way; the API serves them in report.py's order, nested rows too."""
    tables_row: dict[str, Any] = {key: index for index, key in enumerate(shape.fields_of(shape.TableData))}
    tables_row["theo_band"] = {"high_pct": 1.0, "low_pct": 0.5}
    stored = {
        "tables": [dict(sorted(tables_row.items(), reverse=True))],
        "cage": {
            "mtl": [],
            "ctr": [{"name": "x", "directions": [], "player": 1, "cash_out": 0, "cash_in": 1}],
        },
        "trial_balance": {"by_purpose": [{"balance": 0, "purpose": "tray"}], "as_of": None},
        "extra": 1,
        "gaming_day": "2026-11-22",
        "schema_version": 1,
    }
    keys = list(stored)
    random.Random(3).shuffle(keys)

    ordered = shape.in_schema_order({key: stored[key] for key in keys})

    assert list(ordered) == ["schema_version", "gaming_day", "tables", "cage", "trial_balance", "extra"]
    assert list(ordered["tables"][0]) == list(shape.fields_of(shape.TableData))
    assert list(ordered["tables"][0]["theo_band"]) == ["low_pct", "high_pct"]
    assert list(ordered["cage"]) == ["ctr", "mtl"]
    assert list(ordered["cage"]["ctr"][0]) == ["player", "name", "cash_in", "cash_out", "directions"]
    assert list(ordered["trial_balance"]["by_purpose"][0]) == ["purpose", "balance"]


@pytest.fixture(scope="module")
def imports() -> grimp.ImportGraph:
    return grimp.build_graph("tables", "casino", "ledger")


def test_the_services_never_import_the_tasks(imports: grimp.ImportGraph) -> None:
    """tasks → services, as HackSoft's guide has it; the run is sent by the task's name."""
    assert not imports.chain_exists(importer="tables.audit.services", imported="tables.audit.tasks")
    assert imports.direct_import_exists(importer="tables.audit.tasks", imported="tables.audit.services")


@pytest.mark.parametrize("above", ["tables.audit.services", "tables.audit.runner", "tables.audit.tasks"])
def test_the_computation_knows_nothing_of_how_it_is_run(imports: grimp.ImportGraph, above: str) -> None:
    assert not imports.chain_exists(importer="tables.audit.compute", imported=above, as_packages=True)
