from django.apps import AppConfig


class VaultsConfig(AppConfig):
    name = "apps.vaults"
    label = "vaults"

    def ready(self) -> None:
        from apps.accounts.hooks import team_membership_ended, token_vault_choices, user_created
        from apps.vaults import row_scope
        from apps.vaults.selectors import vault_choices
        from apps.vaults.services import personal_vault_ensure, team_grants_settle_for

        row_scope.install()  # each request starts and ends unbound from the database's rows
        user_created.subscribe(personal_vault_ensure)  # every account has its private vault
        token_vault_choices.subscribe(vault_choices)  # a token is limited to vaults its holder reads
        team_membership_ended.subscribe(team_grants_settle_for)  # team roles resting on that membership end
