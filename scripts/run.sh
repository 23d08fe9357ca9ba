#!/usr/bin/env bash
# Set up .venv if needed, migrate, and serve okgin on :8000.
# Embedded default: with no DATABASE_URL, SQLite (db.sqlite3) and tasks in-process (AI plays at once).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/venv.sh
export DJANGO_SETTINGS_MODULE="${DJANGO_SETTINGS_MODULE:-okgin_project.settings.local}"
.venv/bin/python manage.py migrate --noinput
exec .venv/bin/python manage.py runserver "${HOST:-127.0.0.1}:${PORT:-8000}"
