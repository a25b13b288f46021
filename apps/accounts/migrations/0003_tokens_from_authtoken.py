"""Keys of rest_framework.authtoken become API tokens: hashed, named, with the default lifetime from now, so their
clients keep working until then. The old table, which held the keys in plain text, is dropped."""

import hashlib
from datetime import timedelta

from django.conf import settings
from django.db import migrations
from django.utils import timezone

LEGACY_TABLE = "authtoken_token"


def tokens_from_authtoken(apps, schema_editor):
    connection = schema_editor.connection
    if LEGACY_TABLE not in connection.introspection.table_names():
        return
    ApiToken = apps.get_model("accounts", "ApiToken")
    expires_at = timezone.now() + timedelta(days=settings.API_TOKEN_DAYS)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT key, user_id, created FROM {LEGACY_TABLE}")  # noqa: S608 - a constant name
        rows = cursor.fetchall()
    for key, user_id, created in rows:
        token = ApiToken.objects.create(
            user_id=user_id,
            name="token from before named tokens",
            prefix=key[:8],
            key_hash=hashlib.sha256(key.encode()).hexdigest(),
            expires_at=expires_at,
        )
        ApiToken.objects.filter(pk=token.pk).update(created_at=created)
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE {LEGACY_TABLE}")
        # Forget its migrations too: were the app installed again, it would recreate the table from scratch.
        cursor.execute("DELETE FROM django_migrations WHERE app = 'authtoken'")


class Migration(migrations.Migration):
    dependencies = [("accounts", "0002_api_tokens")]

    operations = [migrations.RunPython(tokens_from_authtoken, migrations.RunPython.noop)]
