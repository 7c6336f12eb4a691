"""Staff pages of the cashiers, under /staff/cashier/."""

from django.urls import path

from backoffice.cashier import views

urlpatterns = [
    path("", views.desk, name="staff-cashier"),
    path("players/<int:player_id>/", views.player_page, name="staff-cashier-player"),
    path("players/<int:player_id>/move/", views.move, name="staff-cashier-move"),
    path("players/<int:player_id>/reverse/", views.reverse, name="staff-cashier-reverse"),
    path(
        "players/<int:player_id>/reverse/<int:transaction_id>/",
        views.reverse_confirm,
        name="staff-cashier-reverse-confirm",
    ),
    path("requests/<int:request_id>/approve/", views.approve_confirm, name="staff-cashier-approve"),
    path("requests/<int:request_id>/decide/", views.decide, name="staff-cashier-decide"),
    path("deposit-requests/<int:deposit_id>/complete/", views.deposit_complete, name="staff-cashier-deposit-complete"),
    path("deposit-requests/<int:deposit_id>/reject/", views.deposit_reject, name="staff-cashier-deposit-reject"),
    path("report/", views.report, name="staff-cashier-report"),
]
