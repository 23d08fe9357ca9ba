#!/usr/bin/env bash
# Mutation testing with mutmut (pinned in the `mutation` extra of pyproject.toml): how many small
# deliberate bugs in the code does the test suite catch? See docs/mutation.md.
#
#   scripts/mutation.sh TARGET [mutmut run options or mutant names]   run (incremental: results are kept)
#   scripts/mutation.sh TARGET results|show NAME|browse                 look at the survivors
#
# TARGET (code mutated <- tests run against each mutant, only those that execute the mutated function):
#   engine         games/engine (not the AI)          <- tests/engine (not the AI, not the property tests)
#   services       games/services                     <- tests/games (not the query-count test)
#   selectors      games/selectors.py                 <- the game view, filter and export tests
#   notifications  notifications/                     <- tests/notifications
#   idempotency    games/idempotency.py, okgin_project/params.py <- the idempotency and params tests
#   permissions    games/selectors.py, players/authentication.py, players/tokens.py
#                  <- hidden information, game views, account lifecycle, error codes
#   players        players/authentication.py, tokens.py, accounts.py, services.py <- tests/players, error codes
#   guards         idempotency + permissions + games/services/actions.py, players/services.py
#   sample         CI's fixed sample: mutants number 1 and 3 of every function of games/engine/melds.py
#                  <- the meld, lay-off and knock tests; fails below MUTATION_SAMPLE_MIN (default 80)
#                  percent killed. A couple of minutes.
#
# MUTATION_TESTS="tests/a.py tests/b.py" replaces the target's tests (a focused selection per module);
# MUTATION_DEBUG=true shows mutmut's pytest runs (a failed stats run is silent otherwise).
#
# Each target runs in its own copy of the tracked files, outside the checkout (MUTATION_WORK_DIR, by
# default ~/.cache/okgin-mutation/CHECKOUT-ID/TARGET; the checkout is never modified and the tests
# that scan the source tree never see a mutated copy), so results and mutmut's cache survive between
# runs. MUTATION_VENV names a virtualenv with mutmut (default .venv, given the mutation extra). Tests that use the database
# get their own (DATABASE_URL with "_mutation" appended, or MUTATION_DATABASE_URL) and run one
# mutant at a time. Slow: a whole target takes from minutes (guards) to hours on two cores; CI runs
# a fixed sample instead (`scripts/mutation.sh sample`, from .ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$(pwd)"
# MUTATION_VENV: a virtualenv that has mutmut (default: the checkout's .venv, given the `mutation`
# extra if it lacks it; point it elsewhere when .venv is shared and must not be changed).
venv="${MUTATION_VENV:-$ROOT/.venv}"
if [ -z "${MUTATION_VENV:-}" ]; then
    . scripts/venv.sh
    if ! .venv/bin/python -c "import mutmut" 2>/dev/null; then
        .venv/bin/python -m pip install -q -e '.[test,mutation]'
    fi
fi

target="${1:?usage: scripts/mutation.sh engine|services|selectors|notifications|idempotency|permissions|players|guards|sample [run options | results | show NAME]}"
shift
services_src() {  # games/services is being split into a package; take whichever exists
    if [ -d games/services ]; then echo "games/services/"; else echo "games/services.py"; fi
}
actions_src() {
    if [ -d games/services ]; then echo "games/services/actions.py"; else echo "games/services.py"; fi
}
isolation="forkserver"
children=1
only=()
# The tests that exercise the idempotency and permission code (the whole tests/games,
# tests/okgin_project and tests/players take over 10 minutes per stats run here, and the
# Schemathesis and generated-client tests do not finish under mutmut's trampolines).
idempotency_tests=("tests/games/test_views_idempotency.py" "tests/games/test_idempotency_expiry.py"
                   "tests/okgin_project/test_idempotent_creates.py" "tests/okgin_project/test_params.py")
permission_tests=("tests/games/test_views_hidden_information.py" "tests/games/test_views_games.py"
                  "tests/players/test_account_lifecycle.py" "tests/okgin_project/test_error_codes.py")
case "$target" in
    engine)
        src=("games/engine/"); skip=("games/engine/ai/*")
        tests=("tests/engine" "--ignore=tests/engine/ai" "--ignore=tests/engine/test_properties.py"
               "--ignore=tests/engine/test_boundary.py")
        isolation="fork"; children="${MUTATION_CHILDREN:-2}" ;;
    services) src=("$(services_src)"); skip=()
        tests=("tests/games" "--ignore=tests/games/test_views_query_budget.py") ;;
    selectors) src=("games/selectors.py"); skip=()
        tests=("tests/games/test_views_games.py" "tests/games/test_views_hidden_information.py"
               "tests/games/test_views_full_match.py" "tests/games/test_filters.py" "tests/players/test_views_games_ndjson.py"
               "tests/games/test_views_wall_and_undercut.py") ;;
    notifications) src=("notifications/"); skip=("notifications/migrations/*"); tests=("tests/notifications") ;;
    idempotency)
        src=("okgin_project/params.py"); skip=()
        if [ -f games/idempotency.py ]; then src+=("games/idempotency.py"); fi
        tests=("${idempotency_tests[@]}") ;;
    permissions)
        src=("games/selectors.py" "players/authentication.py" "players/tokens.py"); skip=()
        tests=("${permission_tests[@]}") ;;
    players)
        src=("players/authentication.py" "players/tokens.py" "players/accounts.py" "players/services.py"); skip=()
        tests=("tests/players" "tests/okgin_project/test_error_codes.py") ;;
    guards)
        src=("$(actions_src)" "games/selectors.py" "okgin_project/params.py" "players/authentication.py"
             "players/tokens.py" "players/services.py")
        if [ -f games/idempotency.py ]; then src+=("games/idempotency.py"); fi
        skip=(); tests=("${idempotency_tests[@]}" "${permission_tests[@]}" "tests/games/test_services_action_submit.py"
                        "tests/players/test_services_register.py") ;;
    sample)
        src=("games/engine/"); skip=("games/engine/ai/*"); only=("games/engine/melds.py")
        tests=("tests/engine/test_melds.py" "tests/engine/test_layoffs.py" "tests/engine/test_state_knock.py"
               "tests/engine/test_rules.py")
        isolation="fork"; children="${MUTATION_CHILDREN:-2}" ;;
    *) echo "unknown target $target" >&2; exit 2 ;;
esac
# MUTATION_TESTS="tests/x.py tests/y.py" runs those tests instead (a focused selection per module).
if [ -n "${MUTATION_TESTS:-}" ]; then read -ra tests <<< "$MUTATION_TESTS"; fi

# The copy lives outside the checkout (tests that scan the source tree must never see a mutated
# copy): MUTATION_WORK_DIR, or the user's cache folder, one folder per checkout and target.
checkout_id="$(printf %s "$ROOT" | sha1sum | cut -c1-12)"
work="${MUTATION_WORK_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/okgin-mutation/$checkout_id}/$target"
case "$work/" in
    "$ROOT"/*) echo "MUTATION_WORK_DIR must be outside the checkout ($ROOT)" >&2; exit 2 ;;
esac
if [ -d "$ROOT/build/mutation" ]; then
    echo "note: $ROOT/build/mutation is a copy left by an older version of this script; remove it" >&2
fi
mkdir -p "$work"
# A fresh copy of the tracked files (and untracked new ones), keeping mutmut's own state.
git ls-files -z --cached --others --exclude-standard \
    | tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C "$work"

toml_list() { local out="" x; for x in "$@"; do out+="\"$x\", "; done; echo "[${out%, }]"; }
# Files the tests read (RULES.md, docs/...) are copied beside the mutants; the packages are not
# (the ones not mutated are imported from the copy above, through PYTHONPATH).
mapfile -t extra < <(git ls-files | cut -d/ -f1 | sort -u | grep -Ev '^(games|notifications|okgin_project|players|tests|pyproject.toml)$')
cat >> "$work/pyproject.toml" <<EOF

[tool.mutmut]
source_paths = $(toml_list "${src[@]}")
do_not_mutate = $(toml_list "${skip[@]}" "*/migrations/*")
also_copy = $(toml_list "${extra[@]}")
only_mutate = $(toml_list "${only[@]}")
# Run at import (before a mutant can be switched on in the forked test process): not testable here.
do_not_mutate_patterns = ['^def _build_suit_tables[(]', '^    def _make[(]cls, index']
pytest_add_cli_args = ["-p", "no:cacheprovider", "--reuse-db"]
pytest_add_cli_args_test_selection = $(toml_list "${tests[@]}")
debug = ${MUTATION_DEBUG:-false}
process_isolation = "$isolation"
forkserver_warmup = "none"
timeout_multiplier = 10.0
timeout_constant = 10.0
use_git_change_detection = false
EOF

base_db="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/okgin}"
export DATABASE_URL="${MUTATION_DATABASE_URL:-${base_db}_mutation}"
export DJANGO_SETTINGS_MODULE=okgin_project.settings.test
export PYTHONPATH="$work"
cd "$work"
case "${1:-run}" in
    results|show|browse|export-cicd-stats) exec "$venv/bin/mutmut" "$@" ;;
    run) if [ $# -gt 0 ]; then shift; fi ;;
esac
if [ "$isolation" = forkserver ]; then
    # A fresh test database for each run: --reuse-db keeps it between mutants, but a run stopped
    # in a transactional test leaves its rows behind (the next run's stats then fail on them).
    "$venv/bin/python" - <<'PY'
import django, psycopg
from django.conf import settings
django.setup()
db = settings.DATABASES["default"]
name = "test_" + db["NAME"]
with psycopg.connect(dbname="postgres", user=db["USER"], password=db["PASSWORD"], host=db["HOST"],
                     port=db["PORT"] or 5432, autocommit=True) as conn:
    conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
PY
fi
if [ "$target" != sample ]; then
    exec "$venv/bin/mutmut" run --max-children "$children" "$@"
fi
"$venv/bin/mutmut" run --max-children "$children" 'games.engine.melds.*__mutmut_[13]' >/dev/null
"$venv/bin/mutmut" export-cicd-stats >/dev/null
"$venv/bin/mutmut" results | grep -E ': (survived|suspicious|timeout)' || true
exec "$venv/bin/python" - "${MUTATION_SAMPLE_MIN:-80}" <<'PY'
import json, sys
stats = json.load(open("mutants/mutmut-cicd-stats.json"))
tested = stats["killed"] + stats["survived"] + stats.get("timeout", 0) + stats.get("suspicious", 0)
killed = stats["killed"] + stats.get("timeout", 0)
score = 100.0 * killed / tested if tested else 0.0
print(f"mutation sample (games/engine/melds.py, mutants 1 and 3 of each function): "
      f"{killed} of {tested} killed = {score:.1f}% (minimum {sys.argv[1]}%)")
sys.exit(0 if tested and score >= float(sys.argv[1]) else 1)
PY
