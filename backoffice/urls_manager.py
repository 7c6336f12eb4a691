"""Staff pages of the managers."""

urlpatterns: list = []
