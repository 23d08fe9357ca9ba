"""Settings: production refuses to start without SECRET_KEY; the embedded default is SQLite + eager."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run_settings(module: str, env_overrides: dict[str, str], code: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "DATABASE_URL")}
    env.update(env_overrides)
    env["DJANGO_SETTINGS_MODULE"] = module
    return subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); from django.conf import settings; {code}"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
    )


def test_production_refuses_to_start_without_secret_key():
    proc = _run_settings("okgin_project.settings.production", {}, "print('started')")
    assert proc.returncode != 0
    assert "SECRET_KEY must be set" in proc.stderr
    assert "started" not in proc.stdout


def test_production_starts_with_secret_key_and_database_url():
    proc = _run_settings(
        "okgin_project.settings.production",
        {"SECRET_KEY": "x" * 50, "DATABASE_URL": "postgres://u@db:5432/okgin"},
        "print(settings.DATABASES['default']['HOST'], settings.CELERY_TASK_ALWAYS_EAGER, settings.DEBUG)",
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["db", "False", "False"]


def test_embedded_default_is_sqlite_with_in_process_tasks():
    proc = _run_settings(
        "okgin_project.settings.local",
        {},
        "print(settings.DATABASES['default']['ENGINE'], settings.CELERY_TASK_ALWAYS_EAGER)",
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["django.db.backends.sqlite3", "True"]
