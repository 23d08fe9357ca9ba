"""ASGI entry point."""
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "okgin_project.settings.local")
application = get_asgi_application()

from games.sweeps import scheduler_start_if_embedded  # noqa: E402 - needs the app registry

scheduler_start_if_embedded()  # the beat schedule in-process when there is no beat (embedded default)
