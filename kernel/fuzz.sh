#!/usr/bin/env bash
# Runs every fuzz target of the module for a short while (FUZZTIME each,
# default 10s). The committed seed corpora under */testdata/fuzz/ run as
# ordinary tests in `go test ./...`; this adds fresh random inputs. A
# failing input is saved under testdata/fuzz/ by `go test` and fails the run.
#
# Targets are found in the packages whose test files declare a func Fuzz...
# (only those are asked for their list, which compiles their tests).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
fuzztime="${FUZZTIME:-10s}"
found=0
mapfile -t dirs < <(grep -rlE --include='*_test.go' '^func Fuzz[A-Z0-9_]' . | grep -v '/\.' | xargs -r -n1 dirname | sort -u)
for dir in "${dirs[@]}"; do
	pkg="$(go list "$dir")"
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		found=$((found + 1))
		echo "--- fuzz $pkg $target ($fuzztime)"
		if ! go test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime"; then
			# The failing input, printed: on a CI machine the file that
			# go test saved is gone with the machine.
			for f in "$dir/testdata/fuzz/$target"/*; do
				if [[ -f "$f" ]] && ! git ls-files --error-unmatch "$f" >/dev/null 2>&1; then
					echo "--- failing input $f:"
					head -c 20000 "$f"
					echo
				fi
			done
			exit 1
		fi
	done
done
if ((found == 0)); then
	echo "no fuzz targets found" >&2
	exit 1
fi
echo "fuzzed $found targets for $fuzztime each"
