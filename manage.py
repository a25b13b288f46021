#!/usr/bin/env python
import importlib
import os
import sys

REQUEST_SERVERS = {"runserver"}

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "desirepath.settings.dev")
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    try:
        # Loaded first so that a missing variable is one line, not a traceback through Django's loader.
        chosen = importlib.import_module(os.environ["DJANGO_SETTINGS_MODULE"])
    except ImproperlyConfigured as error:
        sys.exit(str(error))
    from desirepath import embedded

    if not chosen.DATABASE_URL:  # on the embedded servers of a data directory
        started = f"; started {' and '.join(sorted(embedded.STARTED))} for this command" if embedded.STARTED else ""
        name = chosen.DATABASES["default"]["NAME"]
        print(f"Data directory {chosen.DATA_DIR}, database {name}{started}", file=sys.stderr)
    command = next((arg for arg in sys.argv[1:] if not arg.startswith("-")), "")
    if command not in REQUEST_SERVERS:  # an operator's command reads as the system; a server binds each request
        from apps.core import row_security

        row_security.process_default_set(row_security.system(f"manage.py {command}"))
    if embedded.STARTED:
        import signal

        # Stopped by SIGTERM (a supervisor, `kill`), the command still stops the servers it started, as on Ctrl+C.
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        execute_from_command_line(sys.argv)
    finally:
        if embedded.STARTED:
            from django.db import connections

            connections.close_all()
            for server, what in embedded.stop_started(chosen.DATA_DIR).items():
                print(f"{server}: {what}", file=sys.stderr)
