#!/usr/bin/env bash
# Set up .venv if needed, migrate, and serve okgin on 127.0.0.1:8000 (HOST and PORT change that).
# Embedded default: with no DATABASE_URL, SQLite (db.sqlite3) and tasks in-process (AI plays at once).
# The first start writes a random secret key to var/secret_key (git ignores it), later ones reuse it.
# DEBUG pages only while bound to loopback: HOST=0.0.0.0 (a phone on the same network) turns DEBUG
# off; list the names the phone uses in ALLOWED_HOSTS, e.g. ALLOWED_HOSTS=192.168.1.20.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/venv.sh
export DJANGO_SETTINGS_MODULE="${DJANGO_SETTINGS_MODULE:-okgin_project.settings.local}"
export HOST="${HOST:-127.0.0.1}"
.venv/bin/python manage.py migrate --noinput
exec .venv/bin/python manage.py runserver "${HOST}:${PORT:-8000}"
