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
    path("integrity/verify/", views.integrity_verify, name="staff-auditor-integrity-verify"),
    path("poker/hands/", views.poker_hands, name="staff-auditor-poker-hands"),
    path("poker/hands/lookup/", views.poker_hand_lookup, name="staff-auditor-poker-hand-lookup"),
    path("poker/hands/<int:hand_id>/", views.poker_hand, name="staff-auditor-poker-hand"),
    path("poker/hands/<int:hand_id>/pokerstars.txt", views.poker_hand_text, name="staff-auditor-poker-hand-text"),
    path("poker/hands/export.jsonl", views.poker_export, {"fmt": "jsonl"}, name="staff-auditor-poker-jsonl"),
    path("poker/hands/export.txt", views.poker_export, {"fmt": "pokerstars"}, name="staff-auditor-poker-pokerstars"),
    path("poker/hands/exports/", views.poker_export_request, name="staff-auditor-poker-export-request"),
    path("poker/rake/", views.poker_rake, name="staff-auditor-poker-rake"),
    path("poker/reconciliation/", views.poker_reconciliation, name="staff-auditor-poker-reconciliation"),
]
