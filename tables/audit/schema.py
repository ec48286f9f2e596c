"""The report's serializers, generated from its TypedDicts (tables.audit.report), never written out.

They exist for the OpenAPI schema of ``GET /api/v1/gaming-days/{date}/report`` and for tests that
validate a served report against it; the API serves the stored dict as it is. So a field added
to report.py is in the schema at once, with the help text, choices or timestamp format its
``Doc`` gives. Components keep the names they had when the serializers were hand-written.
"""

from __future__ import annotations

from typing import Any, get_args, get_origin, is_typeddict

from rest_framework import serializers

from tables.audit import report as shape

# TypedDict -> OpenAPI component name (drf-spectacular drops the "Serializer" suffix).
COMPONENTS: dict[Any, str] = {
    shape.FindingData: "Finding",
    shape.VarianceData: "Variance",
    shape.BandData: "Band",
    shape.TableData: "TableRow",
    shape.DealerData: "DealerRow",
    shape.PlayerData: "PlayerRow",
    shape.MtlEntryData: "Mtl",
    shape.CtrData: "Ctr",
    shape.CageData: "Cage",
    shape.CashFlowHour: "CashFlow",
    shape.PurposeBalance: "Purpose",
    shape.TrialBalanceData: "TrialBalance",
    shape.CheckData: "Check",
    shape.CorrectionData: "CorrectionRow",
    shape.SlipSeriesData: "AuditSlipSeries",
    shape.SlipVoidData: "AuditSlipVoid",
    shape.SlipVarianceData: "AuditSlipVariance",
    shape.SlipTransitData: "AuditSlipInTransit",
    shape.SlipsData: "AuditSlips",
    shape.CashLineData: "AuditCashLine",
    shape.CashCtrData: "AuditCtr",
    shape.CashRefusalData: "AuditCashRefusal",
    shape.CashReportingData: "AuditCashReporting",
    shape.CreditMarkerData: "AuditCreditMarker",
    shape.CreditAgingData: "AuditCreditAging",
    shape.CreditData: "AuditCredit",
    shape.SummaryData: "Summary",
    shape.WinLineData: "WinLine",
    shape.WinRowData: "WinRow",
    shape.WinData: "Win",
    shape.WinSectionData: "AuditWin",
    shape.HoldCheckData: "HoldInvestigation",
    shape.DropBoxData: "AuditDropBox",
    shape.ProgressData: "Progress",
}
_SCALARS: dict[Any, type[serializers.Field]] = {
    int: serializers.IntegerField,
    float: serializers.FloatField,
    bool: serializers.BooleanField,
    str: serializers.CharField,
}
_built: dict[Any, type[serializers.Serializer]] = {}


def _field(hint: Any, doc: shape.Doc, **options: Any) -> serializers.Field:
    """The serializer field for one (stripped) type: scalars, lists, dicts and nested shapes."""
    if doc.help:
        options["help_text"] = doc.help
    if is_typeddict(hint):
        return serializer_for(hint)(**options)
    origin, args = get_origin(hint), get_args(hint)
    if origin is list:
        child, child_doc, _ = shape.describe(args[0])
        if is_typeddict(child):
            return serializer_for(child)(many=True, **options)
        return serializers.ListField(child=_field(child, child_doc), **options)
    if origin is dict:
        value, value_doc, _ = shape.describe(args[1])
        if value is Any:
            return serializers.DictField(**options)
        return serializers.DictField(child=_field(value, value_doc), **options)
    if doc.choices:
        return serializers.ChoiceField(choices=list(doc.choices), **options)
    if doc.moment:
        return serializers.DateTimeField(**options)
    if doc.day:
        return serializers.DateField(**options)
    if hint is str:
        options.setdefault("allow_blank", True)  # an output: an empty note is a note
    if hint not in _SCALARS:
        raise TypeError(f"no serializer field for {hint!r}")
    return _SCALARS[hint](**options)


def _fields(typed: Any, *, all_optional: bool = False) -> dict[str, serializers.Field]:
    fields: dict[str, serializers.Field] = {}
    for name, field in shape.fields_of(typed).items():
        options: dict[str, Any] = {}
        if field.nullable:
            options["allow_null"] = True
        if all_optional or not field.required:
            options["required"] = False
        fields[name] = _field(field.hint, field.doc, **options)
    return fields


def serializer_for(typed: Any) -> type[serializers.Serializer]:
    """The serializer class of one TypedDict of report.py (built once, so components are shared)."""
    built = _built.get(typed)
    if built is None:
        name = COMPONENTS[typed]
        built = _built[typed] = type(f"{name}Serializer", (serializers.Serializer,), _fields(typed))
    return built


def _report_output() -> type[serializers.Serializer]:
    """The status envelope, then every section of the report (there once ``status`` is done)."""
    fields = _fields(shape.StatusData)
    for name, field in _fields(shape.ReportData, all_optional=True).items():
        fields.setdefault(name, field)  # gaming_day: the envelope's
    return type(
        "ReportOutputSerializer", (serializers.Serializer,), {**fields, "__doc__": shape.StatusData.__doc__}
    )


ReportOutputSerializer = _report_output()
