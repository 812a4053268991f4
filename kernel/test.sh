#!/usr/bin/env bash
# Runs every check of the repository and exits non-zero if any fails:
#
#   go vet ./...        static checks of the whole module
#   notebooks           every notebook in notebooks/, headless, through GoNB
#   browser             notebook 01 in JupyterLab in headless Chromium: the
#                       chart must draw
#   fuzz                every fuzz target for a short while (kernel/fuzz.sh)
#   go test             the whole module's tests (engine, engine/notebook,
#                       kernel, the exercise grader), last so that its summary
#                       closes the output. The exercises themselves are left
#                       out: their tests fail until a learner has done them.
#                       The grader's tests check them instead: every test
#                       passes on the solutions and fails on the stubs.
#
# Every step runs even if an earlier one failed; a summary follows. Needs
# `make install` first (`make test` does it). Artifacts (executed notebooks,
# kernel logs, screenshots) are in kernel/.artifacts/.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

failed=()
step() {
	local name="$1"
	shift
	printf '\n=== %s: %s\n' "$name" "$*"
	local start=$SECONDS
	if "$@"; then
		printf '=== %s: ok (%ds)\n' "$name" $((SECONDS - start))
	else
		printf '=== %s: FAILED (%ds)\n' "$name" $((SECONDS - start))
		failed+=("$name")
	fi
}

step vet go vet ./...
step notebooks kernel/.venv/bin/python kernel/run_notebooks.py
step browser node kernel/browser_test.mjs
step fuzz kernel/fuzz.sh
# Every package but the exercises (exercises/NN-name).
mapfile -t packages < <(go list ./... | grep -Ev '/exercises/[0-9]{2}-[^/]+$')
step "go test" go test "${packages[@]}"

echo
if ((${#failed[@]})); then
	echo "make test: FAILED: ${failed[*]}"
	exit 1
fi
echo "make test: vet, notebooks, browser, fuzz and go test all passed"
