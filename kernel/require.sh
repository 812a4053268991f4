#!/usr/bin/env bash
# Checks that this machine has what a make command needs, before that command
# installs or runs anything, and names what to install for whatever is
# missing (all of it at once, not one thing per attempt).
#
# Usage: kernel/require.sh COMMAND   (lab, install, test, notebooks, browser,
#        clear-outputs, vet, unit or fuzz: the make target about to run)
#
# What each command needs:
#   every command       Go, at least the release go.mod names
#   lab, install, notebooks, clear-outputs, browser, test
#                       Python 3.11 or newer, with venv (for kernel/.venv)
#   browser, test       Node.js 20 or newer with npm (ECharts, playwright-core)
#                       and Chromium (the browser test)
#
# Environment: PYTHON (the python to use), CHROMIUM (the browser to use);
# REQUIRE_SHOW=1 prints what was found, on one line.
# Exit status: 0 if everything is there, 1 otherwise.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cmd="${1:-}"
MIN_PYTHON=3.11
MIN_NODE=20

case "$cmd" in
lab | install | notebooks | clear-outputs) needs=(go python) ;;
browser) needs=(go python node chromium) ;;
test) needs=(go python node chromium sandbox) ;;
site) needs=(go python node) ;;
vet | fuzz) needs=(go) ;;
unit) needs=(go sandbox) ;;
*)
	echo "usage: kernel/require.sh lab|install|test|notebooks|browser|site|clear-outputs|vet|unit|fuzz" >&2
	exit 2
	;;
esac

missing=()
found=()
lack() { missing+=("$*"); }

# version_at_least HAVE WANT: dotted versions, numerically.
version_at_least() {
	local IFS=.
	local -a have=($1) want=($2)
	local i
	for i in 0 1 2; do
		local h="${have[i]:-0}" w="${want[i]:-0}"
		((10#${h%%[!0-9]*} > 10#${w%%[!0-9]*})) && return 0
		((10#${h%%[!0-9]*} < 10#${w%%[!0-9]*})) && return 1
	done
	return 0
}

check_go() {
	local want have
	want="$(sed -n 's/^go \([0-9.]*\)$/\1/p' "$ROOT/go.mod")"
	if ! command -v go >/dev/null; then
		lack "Go $want or newer, for everything: https://go.dev/dl/ (then put its bin folder on PATH)"
		return
	fi
	# Asked in the repository, so that GOTOOLCHAIN may switch releases as it would for the build.
	if ! have="$(cd "$ROOT" && go env GOVERSION 2>/dev/null)"; then
		lack "a Go that can build this module (go.mod asks for go $want; 'go env GOVERSION' failed here): https://go.dev/dl/"
		return
	fi
	version_at_least "${have#go}" "$want" || lack "Go $want or newer, for everything (found $have): https://go.dev/dl/"
	found+=("$have")
}

check_python() {
	local py="${PYTHON:-}" p
	if [[ -z "$py" ]]; then
		for p in python3 python; do
			if command -v "$p" >/dev/null; then
				py="$(command -v "$p")"
				break
			fi
		done
	fi
	if [[ -z "$py" ]]; then
		lack "Python $MIN_PYTHON or newer with pip and venv, for JupyterLab: on Debian/Ubuntu 'sudo apt-get install python3 python3-venv', on macOS 'brew install python'"
		return
	fi
	if ! "$py" -c "import sys; sys.exit(0 if sys.version_info[:2] >= tuple(map(int, '$MIN_PYTHON'.split('.'))) else 1)" 2>/dev/null; then
		lack "Python $MIN_PYTHON or newer, for JupyterLab (found $("$py" --version 2>&1) at $py): install a newer one and set PYTHON=/path/to/python3 to choose it"
		return
	fi
	if ! "$py" -c "import venv, ensurepip" 2>/dev/null; then
		lack "Python's venv module with ensurepip, for kernel/.venv ($py has no working venv): on Debian/Ubuntu 'sudo apt-get install python3-venv'"
		return
	fi
	found+=("$("$py" --version 2>&1)")
}

check_node() {
	if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
		lack "Node.js $MIN_NODE or newer with npm, for the offline charts and the browser test: https://nodejs.org/ or on Debian/Ubuntu 'sudo apt-get install nodejs npm'"
		return
	fi
	local have
	have="$(node --version 2>/dev/null)"
	version_at_least "${have#v}" "$MIN_NODE" || {
		lack "Node.js $MIN_NODE or newer, for the browser test (found $have): https://nodejs.org/"
		return
	}
	found+=("Node.js $have")
}

# Found as the browser test finds it: $CHROMIUM, chromium on PATH, /usr/bin/chromium.
check_chromium() {
	local c="" p
	if [[ -n "${CHROMIUM:-}" ]]; then
		[[ -x "$CHROMIUM" ]] || {
			lack "Chromium for the browser test: CHROMIUM=$CHROMIUM is not an executable file"
			return
		}
		c="$CHROMIUM"
	else
		for p in "$(command -v chromium 2>/dev/null)" /usr/bin/chromium; do
			if [[ -n "$p" && -x "$p" ]]; then
				c="$p"
				break
			fi
		done
	fi
	if [[ -z "$c" ]]; then
		lack "Chromium, for the browser test: on Debian/Ubuntu 'sudo apt-get install chromium' (and a font: fonts-dejavu-core), or set CHROMIUM=/path/to/chromium"
		return
	fi
	local v
	if ! v="$(timeout 60 "$c" --headless --no-sandbox --version 2>/dev/null)"; then
		lack "a Chromium that runs, for the browser test: '$c --version' failed (set CHROMIUM=/path/to/chromium to choose another)"
		return
	fi
	v="${v#Chromium }"
	found+=("Chromium ${v%% *}")
}

# The grader runs learner code only inside bubblewrap, and its tests grade
# hostile submissions in it.
check_sandbox() {
	if ! command -v bwrap >/dev/null; then
		lack "bubblewrap, the sandbox the exercise grader runs learner code in: on Debian/Ubuntu 'sudo apt-get install bubblewrap'"
		return
	fi
	if ! bwrap --unshare-all --die-with-parent --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib --symlink usr/lib64 /lib64 --proc /proc --dev /dev /bin/true 2>/dev/null; then
		lack "a bubblewrap that can make a sandbox here ('bwrap --unshare-all ... /bin/true' failed): on Ubuntu 23.10 and later allow unprivileged user namespaces with 'sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0' (exercises/README.md, Grading a class)"
		return
	fi
	found+=("$(bwrap --version)")
}

for n in "${needs[@]}"; do
	"check_$n"
done

if ((${#missing[@]})); then
	{
		echo "make $cmd: this machine lacks what it needs:"
		for m in "${missing[@]}"; do
			echo "  - $m"
		done
		echo "Nothing was installed or run. Install the above and run 'make $cmd' again (README.md, Requirements)."
	} >&2
	exit 1
fi
if [[ "${REQUIRE_SHOW:-}" == 1 ]]; then
	(
		IFS=,
		echo "${found[*]}" | sed 's/,/, /g'
	)
fi
