#!/usr/bin/env bash
# Runs every fuzz target of the module for a short while (FUZZTIME each,
# default 10s). The committed seed corpora under */testdata/fuzz/ run as
# ordinary tests in `go test ./...`; this adds fresh random inputs. A
# failing input is saved under testdata/fuzz/ by `go test`, printed here
# (a CI machine's copy is gone with the machine), and fails the run.
#
# Targets are found in the packages whose test files declare a func Fuzz...
# (only those are asked for their list, which compiles their tests).
#
# `go test -fuzz` can stop at its time limit with "context deadline
# exceeded" while a worker is still busy (minimising an input that found new
# coverage), without any failing input: golang/go#51484. A run that fails
# that way, and saved no input, is run once more; a second failure fails.
# Minimisation is kept short (FUZZMINIMIZETIME, default 3s) so that it
# rarely spans the time limit.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
fuzztime="${FUZZTIME:-10s}"
minimizetime="${FUZZMINIMIZETIME:-3s}"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT

# saved_inputs DIR TARGET: the failing inputs go test saved that git does not know.
saved_inputs() {
	local f
	for f in "$1/testdata/fuzz/$2"/*; do
		if [[ -f "$f" ]] && ! git ls-files --error-unmatch "$f" >/dev/null 2>&1; then
			echo "$f"
		fi
	done
}

# fuzz DIR PKG TARGET: one run; 0 if it passed, 1 if it found a failing
# input or failed otherwise, 2 if it stopped at the deadline with no input.
fuzz() {
	local dir="$1" pkg="$2" target="$3" rc=0
	go test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimizetime" 2>&1 | tee "$out" || rc=$?
	((rc == 0)) && return 0
	local inputs
	inputs="$(saved_inputs "$dir" "$target")"
	if [[ -n "$inputs" ]]; then
		while read -r f; do
			echo "--- failing input $f:"
			head -c 20000 "$f"
			echo
		done <<<"$inputs"
		return 1
	fi
	if grep -q 'context deadline exceeded' "$out"; then
		return 2
	fi
	return 1
}

found=0
mapfile -t dirs < <(grep -rlE --include='*_test.go' '^func Fuzz[A-Z0-9_]' . | grep -v '/\.' | xargs -r -n1 dirname | sort -u)
for dir in "${dirs[@]}"; do
	pkg="$(go list "$dir")"
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		found=$((found + 1))
		echo "--- fuzz $pkg $target ($fuzztime)"
		rc=0
		fuzz "$dir" "$pkg" "$target" || rc=$?
		if ((rc == 2)); then
			echo "--- $target stopped at the time limit with no failing input (golang/go#51484); once more"
			rc=0
			fuzz "$dir" "$pkg" "$target" || rc=$?
		fi
		if ((rc != 0)); then
			echo "FAIL: fuzzing $target in $pkg" >&2
			exit 1
		fi
	done
done
if ((found == 0)); then
	echo "no fuzz targets found" >&2
	exit 1
fi
echo "fuzzed $found targets for $fuzztime each"
