"""Settings: production refuses to start without SECRET_KEY; the embedded default is SQLite + eager."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run_settings(module: str, env_overrides: dict[str, str], code: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "DATABASE_URL", "HOST", "DEBUG")}
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


def test_local_secret_key_is_generated_once_with_mode_0600_and_reused(tmp_path):
    from okgin_project.settings.local import local_secret_key

    path = tmp_path / "var" / "secret_key"
    key = local_secret_key(path)
    assert len(key) >= 50 and path.read_text().strip() == key
    assert path.stat().st_mode & 0o777 == 0o600
    assert local_secret_key(path) == key  # reused
    assert local_secret_key(tmp_path / "other") != key  # random, not a constant
    assert [p.name for p in path.parent.iterdir()] == ["secret_key"]  # no draft left behind


def test_embedded_default_signs_with_the_key_in_var_not_one_from_the_repository():
    proc = _run_settings("okgin_project.settings.local", {}, "print(settings.SECRET_KEY)")
    assert proc.returncode == 0, proc.stderr
    key = proc.stdout.strip()
    assert key == (ROOT / "var" / "secret_key").read_text().strip() and len(key) >= 50
    assert key not in "".join(p.read_text() for p in (ROOT / "okgin_project" / "settings").glob("*.py"))
    tracked = subprocess.run(["git", "-C", str(ROOT), "check-ignore", "-q", "var/secret_key"])
    assert tracked.returncode in (0, 128)  # ignored by git (128: not a git checkout)


def test_embedded_default_shows_debug_pages_only_when_bound_to_loopback():
    base = {"SECRET_KEY": "k" * 50}
    cases = [({}, "True"), ({"HOST": "127.0.0.1"}, "True"), ({"HOST": "::1"}, "True"),
             ({"HOST": "localhost"}, "True"), ({"HOST": "0.0.0.0"}, "False"),
             ({"HOST": "192.168.1.20"}, "False"),
             ({"HOST": "0.0.0.0", "DEBUG": "true"}, "False"),
             ({"HOST": "127.0.0.1", "DEBUG": "false"}, "False")]
    for overrides, debug in cases:
        proc = _run_settings("okgin_project.settings.local", base | overrides, "print(settings.DEBUG)")
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == debug, overrides


def test_production_pools_postgresql_connections_and_wakes_long_polls_through_redis():
    proc = _run_settings(
        "okgin_project.settings.production",
        {"SECRET_KEY": "x" * 50, "DATABASE_URL": "postgres://u@db:5432/okgin"},
        "db = settings.DATABASES['default']; "
        "print(db['OPTIONS']['pool']['max_size'], db['CONN_MAX_AGE'], settings.OKGIN_LIVE_BACKEND, "
        "db['ENGINE'], db['OPTIONS']['pool']['reconnect_timeout'])",
    )
    assert proc.returncode == 0, proc.stderr
    # The pooled backend that replaces every dead idle connection at once (tests/faults/test_pool_recovery.py).
    assert proc.stdout.split() == ["16", "0", "redis", "okgin_project.db.postgresql", "5.0"]
    proc = _run_settings(
        "okgin_project.settings.production",
        {"SECRET_KEY": "x" * 50, "DATABASE_URL": "postgres://u@db:5432/okgin", "DB_POOL_MAX_SIZE": "0",
         "DB_POOL_RECONNECT_TIMEOUT": "2"},
        "db = settings.DATABASES['default']; print(db['ENGINE'], db['CONN_MAX_AGE'], 'pool' in db['OPTIONS'])",
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["django.db.backends.postgresql", "60", "False"]  # no pool: Django's own
    proc = _run_settings("okgin_project.settings.local", {}, "print(settings.OKGIN_LIVE_BACKEND)")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["local"]


def test_gunicorn_serves_with_threads():
    from okgin_project import gunicorn_conf

    assert gunicorn_conf.worker_class == "gthread" and gunicorn_conf.threads >= 100
    assert gunicorn_conf.timeout > 30  # longer than the longest wait


def test_gunicorn_builds_no_access_line_that_its_level_drops():
    """gunicorn's Logger builds the access line's fields for every request once a logconfig_dict
    is set; ours only when ``gunicorn.access`` emits INFO (off by default: Django logs requests).
    Run in a process of its own: gunicorn applies the logging configuration globally."""
    code = (
        "import logging\n"
        "from gunicorn.config import Config\n"
        "from okgin_project import gunicorn_conf\n"
        "cfg = Config()\n"
        "cfg.set('logconfig_dict', gunicorn_conf.logconfig_dict)\n"
        "cfg.set('logger_class', gunicorn_conf.logger_class)\n"
        "log = cfg.logger_class(cfg)\n"
        "built = []\n"
        "log.atoms = lambda *a: built.append(a) or {}\n"
        "log.access(None, None, {}, None)\n"
        "print(type(log).__module__, type(log).__name__, len(built))\n"
        "logging.getLogger('gunicorn.access').setLevel(logging.INFO)\n"
        "log.access(None, None, {}, None)\n"
        "print(len(built))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["okgin_project.gunicorn_conf", "Logger", "0", "1"]


def test_postgresql_statements_are_prepared_at_first_use_unless_turned_off():
    """DB_PREPARE_THRESHOLD (issue 14): server-side parameters and psycopg's prepare_threshold 1 by
    default; ``off`` keeps parameters bound by the client; anything else refuses to start."""
    code = "o = settings.DATABASES['default']['OPTIONS']; print(o.get('server_side_binding'), o.get('prepare_threshold'))"
    base = {"SECRET_KEY": "x" * 50, "DATABASE_URL": "postgres://u@db:5432/okgin"}
    proc = _run_settings("okgin_project.settings.production", base, code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True", "1"]
    proc = _run_settings("okgin_project.settings.production", {**base, "DB_PREPARE_THRESHOLD": "5"}, code)
    assert proc.stdout.split() == ["True", "5"]
    proc = _run_settings("okgin_project.settings.production", {**base, "DB_PREPARE_THRESHOLD": "off"}, code)
    assert proc.stdout.split() == ["None", "None"]
    proc = _run_settings("okgin_project.settings.production", {**base, "DB_PREPARE_THRESHOLD": "always"}, code)
    assert proc.returncode != 0 and "DB_PREPARE_THRESHOLD must be a whole number or off" in proc.stderr
    proc = _run_settings("okgin_project.settings.local", {}, code)  # SQLite: nothing to prepare
    assert proc.stdout.split() == ["None", "None"]
