#!/bin/sh
# Prints the path of a Python 3.13 interpreter for `make package`, or says why there is none.
# `chalice package` builds for the Python it runs on and sets the Lambda runtime from it, and
# cfn-lint rejects python3.11 (deprecated on Lambda): the package is made from Python 3.13.
if command -v pyenv >/dev/null 2>&1; then
    for version in $(pyenv versions --bare 2>/dev/null | grep -E '^3\.13(\.[0-9]+)?$' | sort -r -V); do
        found=$(PYENV_VERSION="$version" pyenv which python3.13 2>/dev/null) && {
            echo "$found"
            exit 0
        }
    done
fi
if python3.13 -c 'import venv' >/dev/null 2>&1; then
    python3.13 -c 'import sys; print(sys.executable)'
    exit 0
fi
echo "make package needs Python 3.13 (the Lambda runtime follows the packaging Python):" >&2
echo "  install it (e.g. 'pyenv install 3.13.0') or put python3.13 on PATH" >&2
exit 1
