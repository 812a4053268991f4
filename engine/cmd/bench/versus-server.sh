#!/bin/sh
# versus-server.sh: many users at once, the course's server (engine/cmd/serve)
# against llama.cpp's llama-server, serving the same GGUF file on this
# machine, driven by the same load generator (engine/cmd/load).
#
# Usage (from the repository's root; run by hand, never in CI):
#
#	engine/cmd/bench/versus-server.sh LLAMACPP_BUILD_DIR [ROUNDS]
#
# LLAMACPP_BUILD_DIR holds the llama-server binary of a llama.cpp build
# (its build/bin), for example one configured with
#
#	cmake -B build -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON -DLLAMA_CURL=OFF
#	cmake --build build -j2 --target llama-server
#
# Both serve SmolLM2-135M-Instruct (kernel/.models, make install), with as
# many threads as the machine has cores, and up to 32 sequences at once:
# llama-server with -np 32 -cb (continuous batching, a context of 256
# tokens a slot), the course's server with its defaults. One server runs
# at a time, on a loopback port, and the other is stopped. For 1, 4, 16
# and 32 clients at once, each client sends CLIENT_REQUESTS (default 2)
# streamed chat requests of 32 words, greedy, max_tokens 128, the end
# tokens banned so that every answer is 128 tokens. The table gives the
# tokens a second of all clients together, and the medians and 95th
# percentiles of the time to the first token and of the time per later
# token, for each server; ratio is the course's tokens a second over
# llama-server's. A second table is the prefix cache: one client sends 3
# requests that start with the same system message of 440 words (about
# 520 tokens with the chat template) and differ after it, max_tokens 16;
# it gives the first request's time to first token, the later ones'
# median, and the share of the first that is (llama-server with one slot
# of 4096 tokens, its prompt cache on, as by default). ROUNDS (default 1) repeats
# the whole table, the servers taking turns; each row is the median of
# the rounds.

set -eu
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: $0 LLAMACPP_BUILD_DIR [ROUNDS]" >&2
	exit 2
fi
lcp=$1 rounds=${2:-1}
[ -x "$lcp/llama-server" ] || { echo "$0: $lcp/llama-server: no such program" >&2; exit 1; }
gguf=kernel/.models/smollm2/SmolLM2-135M-Instruct.Q4_1.gguf
[ -f "$gguf" ] || { echo "$0: $gguf: no such file (make install fetches it)" >&2; exit 1; }
requests=${CLIENT_REQUESTS:-2}
case $requests in '' | *[!0-9]* | 0) echo "$0: CLIENT_REQUESTS = $requests: want a whole number, at least 1" >&2; exit 2 ;; esac

cmdline="$0 $*"
. "$(dirname "$0")/versus-common.sh"
go build -o "$tmp/serve" ./engine/cmd/serve
go build -o "$tmp/load" ./engine/cmd/load
threads=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
port=18181
pid=

# wait_up URL waits until the server answers /models (at most a minute).
wait_up() {
	i=0
	until curl -sf "$1/models" >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 600 ] || { echo "$0: the server at $1 did not start" >&2; exit 1; }
		sleep 0.1
	done
}

# serve_llama and serve_course start one server in the background and
# set $pid; stop ends it. serve_llama's slots are 32 of 256 tokens, or,
# with an argument, that many of 4096 / that many tokens.
serve_llama() {
	np=${1:-32} ctx=8192
	[ $# -gt 0 ] && ctx=4096
	"$lcp/llama-server" -m "$gguf" --host 127.0.0.1 --port $port -t "$threads" -np "$np" -cb -c "$ctx" \
		--alias smollm2 >"$tmp/llama-server.log" 2>&1 &
	pid=$!
}
serve_course() {
	"$tmp/serve" -addr 127.0.0.1:$port -model smollm2 >"$tmp/serve.log" 2>&1 &
	pid=$!
}
stop() { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }
trap 'stop; rm -rf "$tmp"' EXIT

# table SERVER ROUND appends the load's JSON rows for one server.
table() {
	"serve_$1"
	wait_up "http://127.0.0.1:$port/v1"
	"$tmp/load" -url "http://127.0.0.1:$port/v1" -clients 1,4,16,32 -requests "$requests" -json >>"$tmp/$1.jsonl" ||
		{ echo "$0: load against $1 failed; its log:" >&2; tail -n 20 "$tmp/$1.log" "$tmp/llama-server.log" "$tmp/serve.log" 2>/dev/null >&2; exit 1; }
	stop
	# The prefix cache, on a server just started (llama-server with one
	# slot of 4096 tokens, which the prompt fits).
	"serve_$1" 1
	wait_up "http://127.0.0.1:$port/v1"
	"$tmp/load" -url "http://127.0.0.1:$port/v1" -clients 1 -requests 3 -system-words 440 -max-tokens 16 -json >>"$tmp/$1-prefix.jsonl" ||
		{ echo "$0: the prefix-cache load against $1 failed" >&2; exit 1; }
	stop
}

r=0
while [ $r -lt "$rounds" ]; do
	table llama
	table course
	r=$((r + 1))
done

# field FILE CLIENTS NAME prints the median over the rounds of one field.
field() {
	awk -v n="$2" -v k="\"$3\":" '{ if (index($0, "\"clients\":" n ",")) { s = $0; sub(".*" k, "", s); sub("[,}].*", "", s); print s } }' "$1" | median
}

say '%7s  %-12s %9s %9s %9s %9s %9s %7s\n' clients server "tok/s" "TTFT p50" "TTFT p95" "TPOT p50" "TPOT p95" ratio
for n in 1 4 16 32; do
	l=$(field "$tmp/llama.jsonl" $n tok_per_s) c=$(field "$tmp/course.jsonl" $n tok_per_s)
	for s in llama course; do
		name=llama-server ratio=""
		[ $s = course ] && name=course ratio=$(echo "$c $l" | awk '{ printf "%.2f", $1 / $2 }')
		say '%7d  %-12s %9.1f %9.1f %9.1f %9.2f %9.2f %7s\n' $n $name "$(field "$tmp/$s.jsonl" $n tok_per_s)" \
			"$(field "$tmp/$s.jsonl" $n ttft_p50_ms)" "$(field "$tmp/$s.jsonl" $n ttft_p95_ms)" \
			"$(field "$tmp/$s.jsonl" $n tpot_p50_ms)" "$(field "$tmp/$s.jsonl" $n tpot_p95_ms)" "$ratio"
	done
done
say '%s\n' "(SmolLM2-135M-Instruct Q4_1, $threads threads; each client $requests streamed chat requests of 32 words, max_tokens 128, greedy, end tokens banned; tok/s: completion tokens of all clients a second; TTFT, TPOT in ms; ratio = course / llama-server tok/s; rounds: $rounds)"
say '\n%-12s %8s %9s %9s %7s\n' server prompt "TTFT 1st" "TTFT p50" share
for s in llama course; do
	name=llama-server
	[ $s = course ] && name=course
	f=$(field "$tmp/$s-prefix.jsonl" 1 ttft_first_ms) w=$(field "$tmp/$s-prefix.jsonl" 1 ttft_p50_ms)
	say '%-12s %8d %9.1f %9.1f %7s\n' $name "$(field "$tmp/$s-prefix.jsonl" 1 prompt_tokens)" "$f" "$w" "$(echo "$w $f" | awk '{ printf "%.2f", $1 / $2 }')"
done
say '%s\n' "(a shared system message of 440 words; one client, 3 requests, max_tokens 16; TTFT 1st: the first request, cold; TTFT p50: the median of the 3, a warm one; share = p50 / 1st)"
record "llama.cpp's llama-server, $("$lcp/llama-server" --version 2>&1 | tr '\n' ' ' | sed 's/ *$//')"
