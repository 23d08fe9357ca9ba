"""WSGI entry point (gunicorn okgin_project.wsgi)."""
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "okgin_project.settings.local")
application = get_wsgi_application()
