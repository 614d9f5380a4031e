#!/usr/bin/env bash
# python/tests/run_pytest.sh PYTHON — the ctest entry of the Python module's pytest suite: exit 77 (skipped) when
# PYTHON has no pytest (Debian python3-pytest), else pytest's own status.
set -euo pipefail
py="${1:-/usr/bin/python3}"
if ! "$py" -c 'import pytest' >/dev/null 2>&1; then
  echo "pytest is not installed for $py (apt-get install python3-pytest): skipped"
  exit 77
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec "$py" -m pytest -q -p no:cacheprovider "$here"
