from django.apps import AppConfig


class WalletsConfig(AppConfig):
    name = "wallets"
    verbose_name = "Wallets and ledger"

    def ready(self) -> None:
        from casino.services import player_signed_up
        from wallets.services import player_accounts_ensure

        def open_accounts(sender, *, user, **kwargs) -> None:
            player_accounts_ensure(user=user)

        player_signed_up.connect(open_accounts, dispatch_uid="wallets.player_accounts_ensure", weak=False)
