#!/usr/bin/env bash
# Create .venv and install what the project needs. Idempotent: a second run with unchanged
# requirements does nothing. Usage: scripts/setup.sh [app|dev|train]
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-app}"
req=requirements.txt
[ "$what" = dev ] && req=requirements-dev.txt
[ "$what" = train ] && req=requirements-train.txt

PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  echo "Creating .venv with $($PY --version)…"
  "$PY" -m venv .venv
fi
stamp=".venv/.installed-$what"
files=(requirements.txt "$req")
[ "$what" = train ] && files=(requirements.txt requirements-dev.txt "$req")  # train's file includes dev's
want="$(cat "${files[@]}" | sha256sum | cut -c1-16)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "Installing $req (torch==2.13.0 CPU build; first time takes a few minutes)…"
  # /opt/wheels holds the CPU torch wheel on these machines; without it pip would fetch CUDA builds.
  extra=()
  [ -d /opt/wheels ] && extra=(--find-links /opt/wheels)
  # (this machine's pip config lists index folders that may not exist; its warnings are noise)
  .venv/bin/python -m pip install --quiet --disable-pip-version-check "${extra[@]}" -r "$req" \
    2> >(grep -v "is ignored: it is neither a file nor a directory" >&2)
  echo "$want" > "$stamp"
fi

if [ "$what" != app ] && [ ! -x /usr/bin/chromium ]; then
  # Browser tests drive Debian's Chromium; Playwright never downloads a browser of its own.
  echo "Installing Debian's chromium for the browser tests…"
  SUDO=""; [ "$(id -u)" != 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
