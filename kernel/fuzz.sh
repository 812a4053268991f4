#!/usr/bin/env bash
# Runs every fuzz target of the module for a short while (FUZZTIME each,
# default 10s). The committed seed corpora under */testdata/fuzz/ run as
# ordinary tests in `go test ./...`; this adds fresh random inputs. A
# failing input is saved under testdata/fuzz/ by `go test` and fails the run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
fuzztime="${FUZZTIME:-10s}"
found=0
for pkg in $(go list ./...); do
	for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		found=$((found + 1))
		echo "--- fuzz $pkg $target ($fuzztime)"
		go test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime"
	done
done
if ((found == 0)); then
	echo "no fuzz targets found" >&2
	exit 1
fi
echo "fuzzed $found targets for $fuzztime each"
