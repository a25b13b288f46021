"""`make run`: embedded PostgreSQL and Redis (unless DATABASE_URL / REDIS_URL), migrations, the admin account,
the sample vault once, then the web server, a Celery worker and Celery beat. Ctrl-C stops all it started."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from desirepath import embedded
from desirepath.settings.base import BASE_DIR, DATA_DIR, DB_NAME

BIN = Path(sys.executable).parent


def main() -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "desirepath.settings.dev")
    for name, value in {
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }.items():
        os.environ.setdefault(name, value)
    data = DATA_DIR
    stop_postgres = stop_redis = False
    if not os.environ.get("DATABASE_URL"):
        stop_postgres = not embedded.postgres_running(data)
        embedded.ensure_postgres(data, DB_NAME)
    if not os.environ.get("REDIS_URL"):
        was_running = embedded.redis_running(data)
        os.environ["REDIS_URL"] = embedded.ensure_redis(data)
        stop_redis = not was_running
    manage = [sys.executable, str(BASE_DIR / "manage.py")]
    for step in (["migrate", "--noinput"], ["collectstatic", "--noinput", "-v", "0"], ["bootstrap"]):
        subprocess.run(manage + step, check=True, cwd=BASE_DIR)

    port = os.environ.get("DESIREPATH_PORT", "8000")
    bind = os.environ.get("DESIREPATH_BIND", "127.0.0.1")
    queue = os.environ.get("DESIREPATH_TASK_QUEUE", "desirepath")
    commands = {
        "web": [
            str(BIN / "gunicorn"),
            "desirepath.wsgi:application",
            "--bind",
            f"{bind}:{port}",
            "--workers",
            os.environ.get("DESIREPATH_WEB_WORKERS", "2"),
            "--threads",  # a streamed answer holds a thread, not a whole worker
            os.environ.get("DESIREPATH_WEB_THREADS", "8"),
            "--timeout",
            "120",
            "--access-logfile",
            "-",
        ],
        "worker": [
            str(BIN / "celery"),
            "-A",
            "desirepath",
            "worker",
            "-l",
            "INFO",
            "-Q",
            queue,
            "--concurrency",
            os.environ.get("DESIREPATH_WORKER_CONCURRENCY", "1"),
        ],
        # Answers get their own worker: a long import never holds a question up.
        "answers": [
            str(BIN / "celery"),
            "-A",
            "desirepath",
            "worker",
            "-l",
            "INFO",
            "-Q",
            f"{queue}-answers",
            "-n",
            "answers@%h",
            "--concurrency",
            os.environ.get("DESIREPATH_ANSWER_CONCURRENCY", "2"),
        ],
        "beat": [
            str(BIN / "celery"),
            "-A",
            "desirepath",
            "beat",
            "-l",
            "INFO",
            "--scheduler",
            "django_celery_beat.schedulers:DatabaseScheduler",
        ],
    }
    children = {name: subprocess.Popen(cmd, cwd=BASE_DIR) for name, cmd in commands.items()}
    saved = data / "admin_password"
    print(
        f"\nDesirePath is running at http://{bind}:{port}/  (log in as admin"
        f"{'; password in ' + str(saved) if saved.exists() else ''}). Ctrl-C stops it.\n",
        flush=True,
    )

    stopping = False

    def stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    exit_code = 0
    while not stopping:
        for name, child in children.items():
            if child.poll() is not None:
                print(f"{name} exited with {child.returncode}; stopping everything", file=sys.stderr)
                stopping, exit_code = True, 1
        time.sleep(0.5)
    for child in children.values():
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)
    deadline = time.time() + 20
    for child in children.values():
        try:
            child.wait(timeout=max(0.1, deadline - time.time()))
        except subprocess.TimeoutExpired:
            child.kill()
    if stop_redis:
        embedded.stop_redis(data)
    if stop_postgres:
        embedded.stop_postgres(data / "postgres")
    print("DesirePath stopped.", flush=True)
    return exit_code


if __name__ == "__main__":
    raise SystemExit(main())
