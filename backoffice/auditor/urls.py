"""Staff pages of the auditors, mounted at /staff/auditor/."""

from django.urls import path

from backoffice.auditor import views

urlpatterns = [
    path("", views.dashboard, name="staff-auditor"),
    path("ledger/", views.ledger, name="staff-auditor-ledger"),
    path("ledger/export.csv", views.ledger_export, {"fmt": "csv"}, name="staff-auditor-ledger-csv"),
    path("ledger/export.jsonl", views.ledger_export, {"fmt": "jsonl"}, name="staff-auditor-ledger-jsonl"),
    path("exports/", views.export_list, name="staff-auditor-exports"),
    path("exports/<int:job_id>/", views.export_detail, name="staff-auditor-export"),
    path("exports/<int:job_id>/retry/", views.export_retry, name="staff-auditor-export-retry"),
    path("exports/<int:job_id>/download/", views.export_download, name="staff-auditor-export-download"),
    path("exports/<int:job_id>/manifest/", views.export_manifest, name="staff-auditor-export-manifest"),
    path("hands/", views.hand_lookup, name="staff-auditor-hand-lookup"),
    path("hands/<int:hand_id>/", views.hand_recall, name="staff-auditor-hand"),
    path("players/", views.players, name="staff-auditor-players"),
    path("players/<int:user_id>/", views.player_detail, name="staff-auditor-player"),
    path("reports/", views.reports, name="staff-auditor-reports"),
    path("jackpot/", views.jackpot, name="staff-auditor-jackpot"),
    path("jackpot/<int:pool_id>/", views.jackpot_pool, name="staff-auditor-pool"),
    path("integrity/", views.integrity, name="staff-auditor-integrity"),
]
