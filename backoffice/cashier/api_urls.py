"""REST endpoints of the cashier's desk, under /api/cashier/."""

from django.urls import path

from backoffice.cashier import api

urlpatterns = [
    path("players/", api.PlayerSearchApi.as_view(), name="api-cashier-players"),
    path("deposits/", api.DepositApi.as_view(), name="api-cashier-deposit"),
    path("withdrawals/", api.WithdrawalApi.as_view(), name="api-cashier-withdrawal"),
    path("requests/", api.CashRequestListApi.as_view(), name="api-cashier-requests"),
    path("requests/<id:request_id>/approve/", api.CashRequestApproveApi.as_view(), name="api-cashier-approve"),
    path("requests/<id:request_id>/reject/", api.CashRequestRejectApi.as_view(), name="api-cashier-reject"),
    path("reversals/", api.ReversalApi.as_view(), name="api-cashier-reversal"),
    path("report/", api.CashReportApi.as_view(), name="api-cashier-report"),
]
