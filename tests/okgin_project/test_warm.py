"""Start-up objects frozen out of the garbage collector's full passes (``okgin_project.warm``) in
gunicorn's worker processes and Celery's pool processes, through the hooks those servers call.
Each case runs in a process of its own: ``gc.freeze()`` is process-wide."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PRELUDE = (
    "import gc, sys, django\n"
    "django.setup()\n"
    "assert gc.get_freeze_count() == 0\n"
)


def _run(code: str) -> list[str]:
    env = {"DJANGO_SETTINGS_MODULE": "okgin_project.settings.local", "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-c", PRELUDE + code], capture_output=True, text=True, timeout=120,
                          cwd=ROOT, env=env)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.split()


def test_a_gunicorn_worker_imports_the_urlconf_then_freezes_its_startup_objects():
    out = _run(
        "from okgin_project import gunicorn_conf\n"
        "print('games.views' in sys.modules)\n"
        "gunicorn_conf.post_worker_init(None)\n"
        "print('games.views' in sys.modules, gc.get_freeze_count() > 50000, len(gc.get_objects()) < 1000)\n"
    )
    assert out == ["False", "True", "True", "True"]


def test_a_celery_pool_process_freezes_its_startup_objects_when_it_starts():
    out = _run(
        "from celery import signals\n"
        "import okgin_project.celery\n"
        "signals.worker_process_init.send(sender=None)\n"
        "print(gc.get_freeze_count() > 50000, len(gc.get_objects()) < 1000)\n"
    )
    assert out == ["True", "True"]
