"""REST endpoints of the auditors, under /api/auditor/."""

urlpatterns: list = []
