# Sourced by run.sh and test.sh: create .venv with python3 if missing and (re)install the project
# with its pinned dependencies whenever pyproject.toml changed since the last install.
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
_okgin_stamp="$(sha256sum pyproject.toml | cut -d' ' -f1)"
if [ "$(cat .venv/.okgin-installed 2>/dev/null)" != "$_okgin_stamp" ]; then
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -e '.[test]'
    echo "$_okgin_stamp" > .venv/.okgin-installed
fi
