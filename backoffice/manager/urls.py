"""Staff pages of the managers (mounted at /staff/manager/)."""

from django.urls import path

from backoffice.manager import views

urlpatterns = [
    path("", views.overview, name="staff-manager"),
    path("tiers/new/", views.tier_edit, name="staff-manager-tier-new"),
    path("tiers/<int:tier_id>/", views.tier_edit, name="staff-manager-tier"),
    path("tables/new/", views.table_edit, name="staff-manager-table-new"),
    path("tables/<int:table_id>/", views.table_edit, name="staff-manager-table"),
    path("tables/<int:table_id>/open/", views.table_open, name="staff-manager-table-open"),
    path("tables/<int:table_id>/close/", views.table_close, name="staff-manager-table-close"),
    path("paytables/new/", views.paytable_edit, name="staff-manager-paytable-new"),
    path("paytables/<int:paytable_id>/", views.paytable_edit, name="staff-manager-paytable"),
    path("pools/new/", views.pool_edit, name="staff-manager-pool-new"),
    path("pools/<int:pool_id>/", views.pool_edit, name="staff-manager-pool"),
    path("pools/<int:pool_id>/top-up/", views.pool_top_up, name="staff-manager-pool-top-up"),
    path("audit/", views.audit_log, name="staff-manager-audit"),
]
