#!/bin/sh
# versus-smollm2.sh: decode and prefill speed of this engine and of
# llama.cpp's CPU backend on SmolLM2-135M-Instruct (Q4_1), side by side on
# this machine, runs interleaved.
#
# Usage (from the repository's root; run by hand, never in CI):
#
#	engine/cmd/bench/versus-smollm2.sh LLAMACPP_BUILD_DIR [ROUNDS]
#
# LLAMACPP_BUILD_DIR is the directory holding the llama-bench binary of a
# llama.cpp build (its build/bin), for example one configured with
#
#	cmake -B build -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON -DLLAMA_CURL=OFF
#	cmake --build build -j2 --target llama-bench
#
# This repository holds no part of llama.cpp. Both programs read the same
# file, the GGUF model the course installs in kernel/.models/smollm2/ (make
# install fetches it), which the engine knows as -model smollm2.
#
# For 1 and 2 threads, both programs run ROUNDS times (default 3),
# alternating, and the script prints two rows, decode and prefill, with the
# median tok/s of each program, their ratio (engine / llama.cpp; above 1,
# the engine is faster), and the lowest and highest of the rounds' own
# ratios (the two programs run one after the other in each round, so a wide
# range says the machine's speed moved). Decode is 128 tokens from an empty
# context, one at a time: llama-bench's tg128 against bench's decode rate
# (-steps 128). Prefill is a 128-token prompt in one batch into an empty
# context: llama-bench's pp128 against bench's batched prefill (-prompt
# 128). Each llama-bench call repeats a test 3 times after a warm-up and
# reports the mean rate; each bench call times 3 runs after a warm-up and
# reports the rate of the median. llama.cpp keeps its defaults otherwise
# (an f16 KV cache, flash attention on "auto"). Other work on the machine
# moves both: compare only numbers from one run of this script.
#
# A run that finishes is appended to engine/cmd/bench/results.md (see
# versus-common.sh, which the three versus scripts share).
set -eu

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: $0 LLAMACPP_BUILD_DIR [ROUNDS]" >&2
	exit 2
fi
lcp=$1 rounds=${2:-3}
[ -x "$lcp/llama-bench" ] || { echo "$0: $lcp/llama-bench: no such program" >&2; exit 1; }
gguf=kernel/.models/smollm2/SmolLM2-135M-Instruct.Q4_1.gguf
[ -f "$gguf" ] || { echo "$0: $gguf: no such file (make install fetches it)" >&2; exit 1; }

cmdline="$0 $*"
. "$(dirname "$0")/versus-common.sh"

# cpp_rates THREADS prints llama.cpp's decode and prefill tok/s.
cpp_rates() {
	"$lcp/llama-bench" -m "$gguf" -p 128 -n 128 -t "$1" -r 3 -o jsonl 2>"$tmp/llama-bench.log" >"$tmp/llama-bench.out" ||
		{ echo "$0: llama-bench on $gguf failed:" >&2; tail -n 20 "$tmp/llama-bench.log" >&2; exit 1; }
	awk 'function num(k,   s) { s = $0; sub(".*\"" k "\": *", "", s); sub("[,}].*", "", s); return s + 0 }
		num("n_gen") > 0 { tg = num("avg_ts") }
		num("n_prompt") > 0 { pp = num("avg_ts") }
		END { if (tg == "" || pp == "") exit 1; print tg, pp }' "$tmp/llama-bench.out" ||
		{ echo "$0: no tg and pp figures from llama-bench on $gguf" >&2; exit 1; }
}

# go_rates THREADS prints the engine's decode and prefill tok/s.
go_rates() {
	"$tmp/bench" -model smollm2 -steps 128 -threads "$1" -prompt 128 -runs 3 -no-cache 0 -json >"$tmp/bench.out" ||
		{ echo "$0: bench -model smollm2 failed" >&2; exit 1; }
	awk -F': ' '/^  "[a-z_]+": \{/ { part = $1 }
		/"tok_per_s"/ { gsub(/,/, "", $2); r[part] = $2 }
		END { d = r["  \"decode\""]; p = r["  \"prefill_batched\""]; if (d == "" || p == "") exit 1; print d, p }' "$tmp/bench.out" ||
		{ echo "$0: no decode and prefill figures from bench -model smollm2" >&2; exit 1; }
}

say '%-8s %7s %15s %12s %7s %13s\n' test threads "llama.cpp tok/s" "engine tok/s" ratio "round ratios"
row() { # THREADS
	: >"$tmp/cd" && : >"$tmp/cp" && : >"$tmp/gd" && : >"$tmp/gp"
	i=0
	while [ $i -lt "$rounds" ]; do
		cpp_rates "$1" >"$tmp/c"
		go_rates "$1" >"$tmp/g"
		read -r d p <"$tmp/c" && echo "$d" >>"$tmp/cd" && echo "$p" >>"$tmp/cp"
		read -r d p <"$tmp/g" && echo "$d" >>"$tmp/gd" && echo "$p" >>"$tmp/gp"
		i=$((i + 1))
	done
	for test in decode prefill; do
		case $test in decode) cf=$tmp/cd gf=$tmp/gd ;; *) cf=$tmp/cp gf=$tmp/gp ;; esac
		c=$(median <"$cf") g=$(median <"$gf")
		say '%-8s %7d %15.1f %12.1f %7.2f %13s\n' "$test" "$1" "$c" "$g" "$(echo "$g $c" | awk '{ print $1 / $2 }')" "$(spread "$cf" "$gf")"
	done
}

for t in 1 2; do
	row $t
done
say '%s\n' "(SmolLM2-135M-Instruct Q4_1; decode: 128 tokens from an empty context; prefill: 128 tokens in one batch; ratio = engine / llama.cpp; rounds: $rounds)"
record "llama.cpp's llama-bench, $("$lcp/llama-bench" --version 2>&1 | tr '\n' ' ' | sed 's/ *$//')"
