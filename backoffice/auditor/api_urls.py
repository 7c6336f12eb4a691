"""REST endpoints of the auditors, mounted at /api/auditor/."""

from django.urls import path

from backoffice.auditor import api

urlpatterns = [
    path("ledger/", api.LedgerApi.as_view(), name="api-auditor-ledger"),
    path("ledger/export.csv", api.LedgerExportApi.as_view(), name="api-auditor-ledger-csv"),
    path("ledger/export.jsonl", api.LedgerExportJsonlApi.as_view(), name="api-auditor-ledger-jsonl"),
    path("exports/", api.ExportListApi.as_view(), name="api-auditor-exports"),
    path("exports/<id:job_id>/", api.ExportDetailApi.as_view(), name="api-auditor-export"),
    path("exports/<id:job_id>/retry/", api.ExportRetryApi.as_view(), name="api-auditor-export-retry"),
    path("exports/<id:job_id>/download/", api.ExportDownloadApi.as_view(), name="api-auditor-export-download"),
    path("exports/<id:job_id>/manifest/", api.ExportManifestApi.as_view(), name="api-auditor-export-manifest"),
    path("hands/<id:hand_id>/", api.HandRecallApi.as_view(), name="api-auditor-hand"),
    path("players/", api.PlayerSearchApi.as_view(), name="api-auditor-players"),
    path("players/<id:user_id>/", api.PlayerDetailApi.as_view(), name="api-auditor-player"),
    path("reports/daily/", api.ReportApi.as_view(), name="api-auditor-report"),
    path("jackpot/pools/", api.PoolListApi.as_view(), name="api-auditor-pools"),
    path("jackpot/pools/<id:pool_id>/", api.PoolHistoryApi.as_view(), name="api-auditor-pool"),
    path("integrity/", api.IntegrityApi.as_view(), name="api-auditor-integrity"),
    path("integrity/verifications/", api.VerificationListApi.as_view(), name="api-auditor-verifications"),
    path(
        "integrity/verifications/<int:verification_id>/",
        api.VerificationDetailApi.as_view(),
        name="api-auditor-verification",
    ),
    path("poker/hands/", api.PokerHandListApi.as_view(), name="api-auditor-poker-hands"),
    path("poker/hands/<id:hand_id>/", api.PokerHandRecallApi.as_view(), name="api-auditor-poker-hand"),
    path("poker/hands/export.jsonl", api.PokerExportApi.as_view(), name="api-auditor-poker-jsonl"),
    path("poker/hands/export.txt", api.PokerExportTextApi.as_view(), name="api-auditor-poker-pokerstars"),
    path("poker/hands/exports/", api.PokerExportRequestApi.as_view(), name="api-auditor-poker-export-request"),
    path("poker/rake/", api.PokerRakeApi.as_view(), name="api-auditor-poker-rake"),
    path("poker/reconciliation/", api.PokerReconciliationApi.as_view(), name="api-auditor-poker-reconciliation"),
]
