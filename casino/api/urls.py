"""Every /api/v1/ route (API.md), gathered in one place so the contract is easy to read."""

from django.urls import URLPattern, path
from drf_spectacular.views import SpectacularAPIView
from rest_framework.views import APIView

from casino.api import access_views as access
from casino.api import cash_views as cash
from casino.api import ledger_views as ledger
from casino.api import views as people
from casino.api.docs import docs_view
from tables.api import audit_views as audits
from tables.api import correction_views as corrections
from tables.api import credit_views as credit
from tables.api import dealer_views as dealers
from tables.api import drop_views as drop
from tables.api import evidence_views as evidence
from tables.api import ratings_views as ratings
from tables.api import round_views as rounds
from tables.api import slip_views as slips
from tables.api import transit_views as transit
from tables.api import views as tables
from tables.api import win_views


def decisions(prefix: str, approve: type[APIView], refuse: type[APIView], *, name: str) -> list[URLPattern]:
    """A second person's two answers to a request: ``<prefix>/approve`` and ``<prefix>/refuse``."""
    return [
        path(f"{prefix}/approve", approve.as_view(), name=f"{name}-approve"),
        path(f"{prefix}/refuse", refuse.as_view(), name=f"{name}-refuse"),
    ]


urlpatterns = [
    path("schema", SpectacularAPIView.as_view(), name="schema"),
    path("docs", docs_view, name="docs"),
    path("auth/token", people.TokenCreateApi.as_view(), name="auth-token"),
    path("me", people.MeApi.as_view(), name="me"),
    path("staff", people.StaffCreateApi.as_view(), name="staff-create"),
    path("players", people.PlayerListCreateApi.as_view(), name="players"),
    path("players/<player:player_id>", people.PlayerDetailApi.as_view(), name="player-detail"),
    path("players/<player:player_id>/balance", people.PlayerBalanceApi.as_view(), name="player-balance"),
    path(
        "players/<player:player_id>/transactions",
        people.PlayerTransactionsApi.as_view(),
        name="player-transactions",
    ),
    path(
        "players/<player:player_id>/identification",
        cash.IdentificationCreateApi.as_view(),
        name="player-identification",
    ),
    path(
        "players/<player:player_id>/cash-activity",
        cash.CashActivityApi.as_view(),
        name="player-cash-activity",
    ),
    path("mtl", cash.MtlListApi.as_view(), name="mtl"),
    path("ctrs", cash.CtrListApi.as_view(), name="ctrs"),
    path("cage/buy-ins", people.BuyInApi.as_view(), name="cage-buy-in"),
    path("cage/cash-outs", people.CashOutApi.as_view(), name="cage-cash-out"),
    path("tables", tables.TableListCreateApi.as_view(), name="tables"),
    path("tables/<id:table_id>", tables.TableDetailApi.as_view(), name="table-detail"),
    path("tables/<id:table_id>/limits", tables.TableLimitsApi.as_view(), name="table-limits"),
    path("tables/<id:table_id>/assign", tables.TableAssignApi.as_view(), name="table-assign"),
    path("tables/<id:table_id>/dealers", dealers.TableDealerShiftListApi.as_view(), name="table-dealers"),
    path("tables/<id:table_id>/open", tables.TableOpenApi.as_view(), name="table-open"),
    path("tables/<id:table_id>/close", tables.TableCloseApi.as_view(), name="table-close"),
    path("tables/<id:table_id>/fills", transit.FillCreateApi.as_view(), name="table-fills"),
    *decisions(
        "tables/<id:table_id>/fills/<id:slip_id>", transit.FillApproveApi, transit.FillRefuseApi, name="fill"
    ),
    path("tables/<id:table_id>/credits", transit.CreditCreateApi.as_view(), name="table-credits"),
    *decisions(
        "tables/<id:table_id>/credits/<id:slip_id>",
        transit.CreditApproveApi,
        transit.CreditRefuseApi,
        name="credit",
    ),
    path("tables/<id:table_id>/seats", tables.SeatCreateApi.as_view(), name="table-seats"),
    path(
        "tables/<id:table_id>/seats/<id:player_id>",
        tables.SeatDeleteApi.as_view(),
        name="table-seat-delete",
    ),
]

urlpatterns += [
    path("tables/<id:table_id>/rounds", rounds.RoundCreateApi.as_view(), name="table-rounds"),
    path("rounds/<id:round_id>", rounds.RoundDetailApi.as_view(), name="round-detail"),
    path("rounds/<id:round_id>/actions", rounds.RoundActionApi.as_view(), name="round-actions"),
    path("rounds/<id:round_id>/verify", rounds.RoundVerifyApi.as_view(), name="round-verify"),
    path(
        "rounds/<id:round_id>/settlements",
        rounds.RoundSettlementListApi.as_view(),
        name="round-settlements",
    ),
    path(
        "rounds/<id:round_id>/corrections",
        corrections.RoundCorrectionCreateApi.as_view(),
        name="round-corrections",
    ),
    *decisions(
        "corrections/<id:correction_id>",
        corrections.CorrectionApproveApi,
        corrections.CorrectionRefuseApi,
        name="correction",
    ),
]

urlpatterns += [
    path("gaming-days/<str:day>/close", audits.GamingDayCloseApi.as_view(), name="gaming-day-close"),
    path("gaming-days/<str:day>/report", audits.GamingDayReportApi.as_view(), name="gaming-day-report"),
    path("gaming-days/<str:day>/win", win_views.GamingDayWinApi.as_view(), name="gaming-day-win"),
    path("evidence/<str:day>", evidence.EvidenceCheckpointApi.as_view(), name="evidence-checkpoint"),
    path("evidence/<str:day>/export", evidence.EvidenceExportApi.as_view(), name="evidence-export"),
    path("evidence/<str:day>/proof", evidence.EvidenceProofApi.as_view(), name="evidence-proof"),
    path("exceptions", evidence.ExceptionListApi.as_view(), name="exceptions"),
    path("staff/access-review", access.AccessReviewApi.as_view(), name="staff-access-review"),
]

urlpatterns += [
    path("ledger/trial-balance", ledger.TrialBalanceApi.as_view(), name="ledger-trial-balance"),
]

urlpatterns += [
    path("players/<player:player_id>/ratings", ratings.PlayerRatingsApi.as_view(), name="player-ratings"),
    path("tables/<id:table_id>/hourly", ratings.TableHourlyApi.as_view(), name="table-hourly"),
    path(
        "dealers/<id:dealer_id>/performance",
        ratings.DealerPerformanceApi.as_view(),
        name="dealer-performance",
    ),
]

from tables.api import alert_views as alerts  # noqa: E402

urlpatterns += [
    path("alerts", alerts.AlertListApi.as_view(), name="alerts"),
    path("alerts/<id:alert_id>/resolve", alerts.AlertResolveApi.as_view(), name="alert-resolve"),
]

urlpatterns += [
    path("chips", slips.ChipSetApi.as_view(), name="chips"),
    path("slips", slips.SlipListApi.as_view(), name="slips"),
    path("slips/series", slips.SlipSeriesApi.as_view(), name="slip-series"),
    path("slips/<id:slip_id>", slips.SlipDetailApi.as_view(), name="slip-detail"),
    path("slips/<id:slip_id>/sign", slips.SlipSignApi.as_view(), name="slip-sign"),
    path("slips/<id:slip_id>/void", slips.SlipVoidApi.as_view(), name="slip-void"),
    path("slips/<id:slip_id>/pdf", slips.SlipPdfApi.as_view(), name="slip-pdf"),
    path("tables/<id:table_id>/counts", slips.TableCountApi.as_view(), name="table-counts"),
]

urlpatterns += [
    path("players/<player:player_id>/credit-line", credit.CreditLineApi.as_view(), name="player-credit-line"),
    path("tables/<id:table_id>/markers", credit.MarkerCreateApi.as_view(), name="table-markers"),
    path("markers", credit.MarkerListApi.as_view(), name="markers"),
    path("markers/<id:marker_id>/redeem", credit.MarkerRedeemApi.as_view(), name="marker-redeem"),
]

urlpatterns += [
    path("tables/<id:table_id>/cash-buy-ins", drop.CashBuyInApi.as_view(), name="table-cash-buy-ins"),
    path("drop-boxes", drop.DropBoxListApi.as_view(), name="drop-boxes"),
    path("drop-boxes/<id:box_id>/remove", drop.DropBoxRemoveApi.as_view(), name="drop-box-remove"),
    path("drop-boxes/<id:box_id>/count", drop.DropBoxCountApi.as_view(), name="drop-box-count"),
]
