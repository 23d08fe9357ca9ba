#!/usr/bin/env bash
# Set up .venv if needed and run the whole test suite with pytest against PostgreSQL (and Redis).
# DATABASE_URL defaults to postgres://postgres@127.0.0.1:5432/okgin (pytest-django creates test_okgin).
# Extra arguments go to pytest. Exit code 5 (no tests collected) is turned into a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/venv.sh
export DJANGO_SETTINGS_MODULE=okgin_project.settings.test
set +e
.venv/bin/python -m pytest "$@"
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
    echo "test.sh: pytest collected no tests; treating as failure" >&2
    exit 1
fi
exit "$rc"
