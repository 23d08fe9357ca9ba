"""WSGI entry point (gunicorn okgin_project.wsgi)."""
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "okgin_project.settings.local")
application = get_wsgi_application()

from games.sweeps import scheduler_start_if_embedded  # noqa: E402 - needs the app registry

scheduler_start_if_embedded()  # the beat schedule in-process when there is no beat (embedded default)
