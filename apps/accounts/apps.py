from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "apps.accounts"
    label = "accounts"

    def ready(self) -> None:
        from django.contrib.auth.models import User
        from django.contrib.auth.validators import UnicodeUsernameValidator
        from django.db.models.signals import post_save

        from apps.accounts.receivers import user_saved
        from apps.accounts.usernames import username_rule

        # Django's default allows `+` and 150 characters; every form and command that validates a User (the admin's,
        # `createsuperuser`) checks ours instead. Only the validators change: the column and migrations stay Django's.
        username = User._meta.get_field("username")
        defaults = [check for check in username.validators if not isinstance(check, UnicodeUsernameValidator)]
        username.validators = [*defaults, username_rule]

        # Every way of making an account saves it, `create_user` and `createsuperuser` included: none skips the hook.
        post_save.connect(user_saved, sender=User, dispatch_uid="accounts_user_created")
