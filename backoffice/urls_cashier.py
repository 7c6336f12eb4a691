"""Staff pages of the cashiers."""

urlpatterns: list = []
