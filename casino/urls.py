from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularSwaggerSplitView

from casino.access.api_auth import TokenApi
from casino.http.api import api_not_found
from casino.http.schema import SchemaApi
from jackpot.api import JackpotPoolsApi
from poker import api as poker_api
from tables import api as tables_api
from wallets import api as wallets_api

# <id:…>: ids that fit the database (casino.http.validation.IdConverter, registered in casino.apps).

api = [
    path("auth/token/", TokenApi.as_view(), name="api-token"),
    path("lobby/", tables_api.LobbyApi.as_view(), name="api-lobby"),
    path("tables/<id:table_id>/", tables_api.TableDetailApi.as_view(), name="api-table"),
    path("tables/<id:table_id>/sit/", tables_api.TableSitApi.as_view(), name="api-table-sit"),
    path("tables/<id:table_id>/leave/", tables_api.TableLeaveApi.as_view(), name="api-table-leave"),
    path("tables/<id:table_id>/bet/", tables_api.TableBetApi.as_view(), name="api-table-bet"),
    path("tables/<id:table_id>/hand/", tables_api.TableCurrentHandApi.as_view(), name="api-table-hand"),
    path("hands/", tables_api.HandHistoryApi.as_view(), name="api-hands"),
    path("hands/<id:hand_id>/", tables_api.HandDetailApi.as_view(), name="api-hand"),
    path("hands/<id:hand_id>/fold/", tables_api.HandFoldApi.as_view(), name="api-hand-fold"),
    path("hands/<id:hand_id>/raise/", tables_api.HandRaiseApi.as_view(), name="api-hand-raise"),
    path("wallet/", wallets_api.WalletApi.as_view(), name="api-wallet"),
    path("wallet/statement/", wallets_api.WalletStatementApi.as_view(), name="api-wallet-statement"),
    path("responsible-gaming/", wallets_api.ResponsibleGamingApi.as_view(), name="api-rg"),
    path("responsible-gaming/limits/", wallets_api.LimitApi.as_view(), name="api-rg-limits"),
    path("responsible-gaming/self-exclusion/", wallets_api.SelfExclusionApi.as_view(), name="api-rg-exclusion"),
    path("responsible-gaming/reality-check/", wallets_api.RealityCheckApi.as_view(), name="api-rg-reality"),
    path("jackpot/", JackpotPoolsApi.as_view(), name="api-jackpot"),
    path("poker/tables/", poker_api.PokerLobbyApi.as_view(), name="api-poker-tables"),
    path("poker/tables/<id:table_id>/", poker_api.PokerTableApi.as_view(), name="api-poker-table"),
    path("poker/tables/<id:table_id>/sit/", poker_api.PokerSitApi.as_view(), name="api-poker-sit"),
    path("poker/tables/<id:table_id>/top-up/", poker_api.PokerTopUpApi.as_view(), name="api-poker-top-up"),
    path("poker/tables/<id:table_id>/sit-out/", poker_api.PokerSitOutApi.as_view(), name="api-poker-sit-out"),
    path("poker/tables/<id:table_id>/sit-in/", poker_api.PokerSitInApi.as_view(), name="api-poker-sit-in"),
    path("poker/tables/<id:table_id>/leave/", poker_api.PokerLeaveApi.as_view(), name="api-poker-leave"),
    path(
        "poker/tables/<id:table_id>/waiting-list/",
        poker_api.PokerWaitingListApi.as_view(),
        name="api-poker-waiting-list",
    ),
    path(
        "poker/tables/<id:table_id>/always-show/", poker_api.PokerAlwaysShowApi.as_view(), name="api-poker-always-show"
    ),
    path("poker/tables/<id:table_id>/act/", poker_api.PokerActApi.as_view(), name="api-poker-act"),
    path("poker/tables/<id:table_id>/preaction/", poker_api.PokerPreactApi.as_view(), name="api-poker-preaction"),
    path("poker/hands/", poker_api.PokerHandListApi.as_view(), name="api-poker-hands"),
    path("poker/hands/<id:hand_id>/", poker_api.PokerHandApi.as_view(), name="api-poker-hand"),
    path("poker/notes/", poker_api.PokerNotesApi.as_view(), name="api-poker-notes"),
    path("poker/notes/<str:player>/", poker_api.PokerNoteApi.as_view(), name="api-poker-note"),
    path(
        "poker/hands/<id:hand_id>/pokerstars/", poker_api.PokerHandTextApi.as_view(), name="api-poker-hand-pokerstars"
    ),
    path("schema/", SchemaApi.as_view(), name="schema"),
    path(
        "docs/",
        # The split view: the start script is a second request (?script=), not inline (CSP).
        SpectacularSwaggerSplitView.as_view(url_name="schema", template_name="api/swagger_ui.html"),
        name="api-docs",
    ),
    path("cashier/", include("backoffice.cashier.api_urls")),
    path("manager/", include("backoffice.manager.api_urls")),
    path("auditor/", include("backoffice.auditor.api_urls")),
    re_path(r"^(?P<path>[\s\S]*)$", api_not_found, name="api-not-found"),  # last: JSON 404s (newlines too)
]

urlpatterns = [
    path("api-auth/", include("rest_framework.urls")),
    path("admin/", admin.site.urls),
    path("api/", include(api)),
    path("api", api_not_found),  # not a redirect to /api/: the JSON 404 there too
    path("staff/cashier/", include("backoffice.cashier.urls")),
    path("staff/manager/", include("backoffice.manager.urls")),
    path("staff/auditor/", include("backoffice.auditor.urls")),
    path("", include("casino.page_urls")),
]

handler400 = "casino.http.api.api_bad_request"
handler500 = "casino.http.api.api_server_error"
