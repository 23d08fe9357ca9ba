#!/usr/bin/env bash
# Set up .venv if needed and run the whole test suite with pytest against PostgreSQL (and Redis).
# DATABASE_URL defaults to postgres://postgres@127.0.0.1:5432/okgin (pytest-django creates test_okgin,
# or test_okgin_gw0, test_okgin_gw1, ... for parallel processes).
#
# Without arguments: the suite runs on TEST_WORKERS pytest processes (pytest-xdist; default 2, 0 for
# one process), except the fault, end-to-end and deployment tests (markers faults, e2e, deploy: they
# start Celery workers, outages and deployments whose timing and broker queue they must not share),
# which then run one at a time. The exit code is the first failure's.
# With arguments: one pytest process with exactly those arguments (e.g. tests/engine -q).
# Exit code 5 (no tests collected) is turned into a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/venv.sh
export DJANGO_SETTINGS_MODULE=okgin_project.settings.test

run_pytest() {
    local rc=0
    .venv/bin/python -m pytest "$@" || rc=$?
    if [ "$rc" -eq 5 ]; then
        echo "test.sh: pytest collected no tests; treating as failure" >&2
        rc=1
    fi
    return "$rc"
}

if [ "$#" -gt 0 ]; then
    run_pytest "$@"
    exit $?
fi

workers="${TEST_WORKERS:-2}"
parallel=()
if [ "$workers" != "0" ]; then
    parallel=(-n "$workers")
fi
rc=0
run_pytest "${parallel[@]}" -m "not faults and not e2e and not deploy" || rc=$?
run_pytest -m "faults or e2e or deploy" || { r=$?; [ "$rc" -ne 0 ] || rc=$r; }
exit "$rc"
