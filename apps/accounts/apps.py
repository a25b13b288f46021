from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "apps.accounts"
    label = "accounts"

    def ready(self) -> None:
        from django.contrib.auth.models import User
        from django.db.models.signals import post_save

        from apps.accounts.receivers import user_saved

        # Every way of making an account saves it, `create_user` and `createsuperuser` included: none skips the hook.
        post_save.connect(user_saved, sender=User, dispatch_uid="accounts_user_created")
