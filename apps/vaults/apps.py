from django.apps import AppConfig


class VaultsConfig(AppConfig):
    name = "apps.vaults"
    label = "vaults"

    def ready(self) -> None:
        from apps.accounts.hooks import user_created
        from apps.vaults.services import personal_vault_ensure

        user_created.subscribe(personal_vault_ensure)  # every account has its private vault
