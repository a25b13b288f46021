from django.apps import AppConfig


class VaultsConfig(AppConfig):
    name = "apps.vaults"
    label = "vaults"
