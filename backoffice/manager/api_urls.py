"""REST endpoints of the managers (mounted at /api/manager/): managers change, auditors read."""

from django.urls import path

from backoffice.manager import api

urlpatterns = [
    path("tiers/", api.TierListApi.as_view(), name="api-manager-tiers"),
    path("tiers/<id:tier_id>/", api.TierDetailApi.as_view(), name="api-manager-tier"),
    path("paytables/", api.PayTableListApi.as_view(), name="api-manager-paytables"),
    path("paytables/<id:paytable_id>/", api.PayTableDetailApi.as_view(), name="api-manager-paytable"),
    path("tables/", api.TableListApi.as_view(), name="api-manager-tables"),
    path("tables/<id:table_id>/", api.TableDetailApi.as_view(), name="api-manager-table"),
    path("tables/<id:table_id>/open/", api.TableOpenApi.as_view(), name="api-manager-table-open"),
    path("tables/<id:table_id>/close/", api.TableCloseApi.as_view(), name="api-manager-table-close"),
    path("pools/", api.PoolListApi.as_view(), name="api-manager-pools"),
    path("pools/<id:pool_id>/", api.PoolDetailApi.as_view(), name="api-manager-pool"),
    path("pools/<id:pool_id>/top-ups/", api.PoolTopUpApi.as_view(), name="api-manager-pool-top-up"),
    path("audit/", api.AuditLogApi.as_view(), name="api-manager-audit"),
]
