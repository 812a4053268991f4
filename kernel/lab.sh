#!/usr/bin/env bash
# Starts JupyterLab on notebooks/ with the course's GoNB kernel. Run
# kernel/install.sh (make install) first; `make lab` does both.
#
# Extra arguments go to `jupyter lab`, e.g. --port=9999 or --ip=0.0.0.0.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JUPYTER="$ROOT/kernel/.venv/bin/jupyter"
[[ -x "$JUPYTER" ]] || {
	echo "JupyterLab is not installed yet: run 'make install' (or 'make lab')." >&2
	exit 1
}

args=(lab "--ServerApp.root_dir=$ROOT/notebooks")
# Open a browser tab only where there is a screen to show it on.
if [[ "$(uname -s)" != Darwin && -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" ]]; then
	args+=(--no-browser)
fi
# Jupyter refuses to run as root unless told it is intended (containers).
if [[ "$(id -u)" == 0 ]]; then
	args+=(--allow-root)
fi

cat <<MSG

Starting JupyterLab on notebooks/ with the Go (GoNB) kernel.
Open the http://localhost:... URL printed below, token included, in a browser;
start with 01-one-token-at-a-time.ipynb. Press Ctrl+C twice to stop.

MSG
exec "$JUPYTER" "${args[@]}" "$@"
