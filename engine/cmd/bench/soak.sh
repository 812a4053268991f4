#!/bin/sh
# soak.sh: the long soak of the course's server, on loopback: CLIENTS
# clients (default 64) sending completions for SECONDS seconds (default
# 60), some streamed, some hanging up after the first pieces, some with
# prompts long enough for several chunks, through a KV pool of BLOCKS
# blocks of 16 positions (default 256), small enough that sequences are
# preempted and computed again. It is engine/serve's TestSoak, which make
# test runs short (24 clients, 3 seconds): every answer that completes
# must be its request's answer alone, every block must be back in the
# pool at the end, the pool must never make more blocks than its budget
# and the heap must stay within the budget and a margin. It prints the
# requests, completions, hang-ups, bytes of text, the heap's peak and the
# scheduler's counts.
#
# Usage (from the repository's root; run by hand):
#
#	engine/cmd/bench/soak.sh [CLIENTS [SECONDS [MODEL [BLOCKS]]]]
#
# MODEL is default (the course's built-in model) or smollm2.

set -eu
clients=${1:-64} seconds=${2:-60} model=${3:-default} blocks=${4:-256}
for v in "$clients" "$seconds" "$blocks"; do
	case $v in '' | *[!0-9]* | 0) echo "usage: $0 [CLIENTS [SECONDS [MODEL [BLOCKS]]]]: $v is not a whole number above 0" >&2; exit 2 ;; esac
done
case $model in default | smollm2) ;; *) echo "$0: MODEL = $model: want default or smollm2" >&2; exit 2 ;; esac
exec go test ./engine/serve -run '^TestSoak$' -count=1 -v -timeout "$((seconds * 10 + 600))s" \
	-args -soak.clients "$clients" -soak.duration "${seconds}s" -soak.model "$model" -soak.blocks "$blocks"
