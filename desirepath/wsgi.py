import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "desirepath.settings.dev")
application = get_wsgi_application()

# Before the first request: a role the database's row-level security does not hold serves nothing.
from apps.core.database_roles import application_role_refuse_unwalled  # noqa: E402 - needs the apps loaded

application_role_refuse_unwalled()
