"""The Celery application of okgin.

Configured explicitly (JSON only, time limits) from Django settings with the ``CELERY_`` prefix.
With no ``DATABASE_URL`` (the embedded default) ``CELERY_TASK_ALWAYS_EAGER`` is on and tasks run
in-process, so nothing else has to be installed to play against the AI.
"""
import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "okgin_project.settings.local")

app = Celery("okgin")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
