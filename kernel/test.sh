#!/usr/bin/env bash
# Runs every check of the repository (`make test`), a line per step with its
# time on the terminal, and exits non-zero if any failed:
#
#   requirements   what the steps need: Go, Python with venv, Node.js with
#                  npm, Chromium, bubblewrap (kernel/require.sh); stops here
#                  if any is missing, saying what to install
#   install        kernel/install.sh: whatever is missing or out of date,
#                  the real model (SmolLM2-135M-Instruct) included
#   vet            go vet ./...
#   notebooks      every notebook in notebooks/, headless, through GoNB
#   browser        notebook 01 run in JupyterLab in headless Chromium (its
#                  chart must draw), and every notebook opened and saved
#                  (nothing may change)
#   fuzz           every fuzz target for a short while (kernel/fuzz.sh)
#   go test        the whole module's tests (engine, engine/notebook, engine/experiment, kernel,
#                  the exercise grader), last so that go test's closing lines
#                  (a line per package, "ok" or "FAIL") end the output. The
#                  exercises themselves are left out: their tests fail until
#                  a learner has done them; the grader's tests check them
#                  instead (every test passes on the solutions and fails on
#                  the stubs).
#
# Each step's whole output goes to kernel/.artifacts/logs/STEP.log (with the
# executed notebooks, kernel logs and screenshots beside it in
# kernel/.artifacts/); a step that fails prints its details as well. Every
# step runs even if an earlier one failed, except when the requirements or
# the install fail. At the end: the tests that were skipped, and why.
set -uo pipefail

# The install step downloads the real model, so a test that needs it fails
# here when it is missing, rather than skipping (engine/internal/testmodel).
export TOKENBYTOKEN_REQUIRE_MODELS=1

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
ARTIFACTS="$ROOT/kernel/.artifacts"
LOGS="$ARTIFACTS/logs"
mkdir -p "$LOGS"
rm -f "$LOGS"/*.log "$LOGS"/*.json "$LOGS"/*.txt

failed=()
begin=$SECONDS

# took SECONDS: "42s" or "3m07s".
took() {
	local s="$1"
	if ((s >= 60)); then
		printf '%dm%02ds' $((s / 60)) $((s % 60))
	else
		printf '%ds' "$s"
	fi
}

# details LOG: what a person needs to see of a failed step's log: from its
# first line that reports a failure (at most 80 lines), or else its last 40.
details() {
	local log="$1" first
	first="$(grep -nE -m1 '(^|[^a-z])(FAIL|ERROR|Error|error|panic|fatal)' "$log" | cut -d: -f1)"
	if [[ -n "$first" ]]; then
		tail -n "+$first" "$log" | head -n 80
	else
		tail -n 40 "$log"
	fi | sed 's/^/    | /'
	echo "    (the whole log: ${log#"$ROOT"/})"
}

# step NAME COMMAND...: runs COMMAND with its output in LOGS/NAME.log (or
# LOGS/$STEPLOG.log) and prints one line: the name, ok or FAILED, the time,
# and what the function named in SUMMARY (default last_line) says of the log.
step() {
	local name="$1"
	shift
	local log="$LOGS/${STEPLOG:-${name// /-}}.log" start=$SECONDS rc
	printf '  %-13s' "$name"
	"$@" >"$log" 2>&1
	rc=$?
	local line
	line="$("${SUMMARY:-last_line}" "$log")"
	if ((rc == 0)); then
		printf ' ok      %6s  %s\n' "$(took $((SECONDS - start)))" "$line"
	else
		printf ' FAILED  %6s  %s\n' "$(took $((SECONDS - start)))" "$line"
		failed+=("$name")
		if [[ "$name" != "go test" ]]; then # go test's failures are shown below its step line
			details "$log"
		fi
	fi
	return "$rc"
}

last_line() { grep -v '^[[:space:]]*$' "$1" | tail -n 1; }
install_summary() {
	if grep -qE 'installing|creating|written|copied|npm ci' "$1"; then
		echo "installed what was missing or out of date (see the log)"
	else
		echo "up to date"
	fi
}
no_summary() { :; }
gotest_summary() {
	local ok fail
	ok="$(grep -c $'^ok  \t' "$LOGS/go-test.out" 2>/dev/null)"
	fail="$(grep -c $'^FAIL\t' "$LOGS/go-test.out" 2>/dev/null)"
	echo "${ok:-0} packages passed, ${fail:-0} failed"
}

echo "make test: a line per step; each step's whole output is in kernel/.artifacts/logs/"

if ! REQUIRE_SHOW=1 step requirements kernel/require.sh test; then
	echo
	echo "make test: FAILED: this machine lacks what the checks need (above); nothing was installed or run"
	exit 1
fi
if ! SUMMARY=install_summary step install kernel/install.sh; then
	echo
	echo "make test: FAILED: the install did not complete (above), so no check could run"
	exit 1
fi
SUMMARY=no_summary step vet go vet ./...
step notebooks kernel/.venv/bin/python kernel/run_notebooks.py
step browser node kernel/browser_test.mjs
step fuzz kernel/fuzz.sh

# go test, through kernel/testreport: go test's closing line for every
# package on the terminal (not the reference solutions' "no test files"),
# the output of every failing test, and the skipped tests with their
# reasons; everything go test printed in the log.
run_go_test() {
	local report="$ARTIFACTS/bin/testreport" packages
	go build -o "$report" ./kernel/testreport || return 1
	# Every package but the exercises (exercises/NN-name). -e: a package
	# that does not load is listed, and go test reports why.
	mapfile -t packages < <(go list -e ./... | grep -Ev '/exercises/[0-9]{2}-[^/]+$')
	go test -json "${packages[@]}" 2>"$LOGS/go-test.stderr.log" |
		"$report" -log "$LOGS/go-test.log" -skipped "$LOGS/skipped.txt" \
			-quiet '/solutions/' -module "$(go list -m)" >"$LOGS/go-test.out"
	local rc=$?
	# go's own messages (a package that does not load...) onto the
	# terminal too, but not its downloads.
	grep -vE '^go: (downloading|finding|extracting) ' "$LOGS/go-test.stderr.log" >>"$LOGS/go-test.out"
	return "$rc"
}
# The step's own log has the reporter's build; go test's output is in go-test.log.
STEPLOG=go-test-build SUMMARY=gotest_summary step "go test" run_go_test
cat "$LOGS/go-test.out"

echo
if [[ -s "$LOGS/skipped.txt" ]]; then
	cat "$LOGS/skipped.txt"
	echo
else
	echo "skipped: no tests"
fi
if ((${#failed[@]})); then
	# Each failed step's details once more, last, where a CI log that keeps
	# only its tail still shows them.
	for name in "${failed[@]}"; do
		[[ "$name" == "go test" ]] && continue
		echo "$name failed:"
		details "$LOGS/${name// /-}.log"
	done
	echo "make test: FAILED: ${failed[*]} (whole logs in kernel/.artifacts/logs/) after $(took $((SECONDS - begin)))"
	exit 1
fi
echo "make test: all steps passed in $(took $((SECONDS - begin)))"
