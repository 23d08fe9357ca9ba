"""Local development and the embedded default (``./scripts/run.sh``): SQLite unless DATABASE_URL."""
from .base import *  # noqa: F401,F403
from .base import env

DEBUG = env.bool("DEBUG", default=True)
SECRET_KEY = env.str("SECRET_KEY", default="okgin-local-development-only-not-secret-0123456789")
