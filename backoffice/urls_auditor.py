"""Staff pages of the auditors."""

urlpatterns: list = []
