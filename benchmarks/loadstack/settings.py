"""Settings of ``benchmarks/load.py``'s web processes: production settings, plus the Django
reference endpoint (``loadstack.urls``) and a middleware that answers each request's number of SQL
statements in ``X-Bench-Queries``. Only ``load.py`` names this module (``DJANGO_SETTINGS_MODULE``)."""
from okgin_project.settings.production import *  # noqa: F401,F403
from okgin_project.settings.production import MIDDLEWARE

ROOT_URLCONF = "loadstack.urls"
MIDDLEWARE = ["loadstack.reference.QueryCountMiddleware", *MIDDLEWARE]
