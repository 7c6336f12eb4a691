"""Server-rendered pages (player, and later staff). The API lives under /api/."""

from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.views.i18n import JavaScriptCatalog

from casino import i18n
from casino import views as casino_views
from casino.access import security
from tables import views as table_views
from wallets import views as wallet_views

urlpatterns = [
    path("", table_views.lobby, name="lobby"),
    path("accounts/login/", casino_views.SignInView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("i18n/language/", i18n.language_set, name="set_language"),
    # The pages' scripts' catalog (djangojs): window.django.gettext, ngettext, interpolate.
    path("i18n/catalog.js", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    path("accounts/signup/", casino_views.signup, name="signup"),
    path("accounts/two-factor/", security.otp_setup, name="otp-setup"),
    path("accounts/otp/", security.otp_verify, name="otp-verify"),
    path("tables/<int:table_id>/", table_views.table_page, name="table"),
    path("tables/<int:table_id>/sit/", table_views.table_sit, name="table-sit"),
    path("hands/", table_views.hand_history, name="hand-history"),
    path("hands/<int:hand_id>/", table_views.hand_detail, name="hand-detail"),
    path("wallet/", wallet_views.wallet_page, name="wallet"),
    path("wallet/deposit/", wallet_views.deposit_request, name="wallet-deposit"),
    path("wallet/deposit/<int:request_id>/cancel/", wallet_views.deposit_request_cancel, name="wallet-deposit-cancel"),
    path("poker/", include("poker.urls")),
    path("responsible-gaming/", wallet_views.responsible_gaming_page, name="responsible-gaming"),
]
