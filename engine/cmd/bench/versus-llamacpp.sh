#!/bin/sh
# versus-llamacpp.sh: decode and prefill speed of this engine and of
# llama.cpp's CPU backend, side by side on this machine, f32 weights, runs
# interleaved.
#
# Usage (from the repository's root; run by hand, never in CI):
#
#	engine/cmd/bench/versus-llamacpp.sh LLAMACPP_BUILD_DIR MODELS_DIR [ROUNDS]
#
# LLAMACPP_BUILD_DIR is the directory holding the llama-bench and
# llama-convert-llama2c-to-ggml binaries of a llama.cpp build (its
# build/bin), for example one configured with
#
#	cmake -B build -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON -DLLAMA_CURL=OFF
#	cmake --build build -j2 --target llama-bench llama-convert-llama2c-to-ggml
#
# This repository holds no part of llama.cpp. MODELS_DIR holds
# stories260K.bin and tok512.bin. A model of the stories15M shape with
# random weights, and a tokenizer for it, are written to a temporary
# directory by bench -make-model, so nothing is downloaded; so is one of the
# stories110M shape when WITH_110M=1 is in the environment (it is slow: some
# minutes a round). The course's default model, engine/models/target.bin
# with engine/models/tokenizer.bin, is measured too. Every model is
# converted to an f32 GGUF file in the temporary directory by llama.cpp's
# converter.
#
# Each model and thread count runs both programs ROUNDS times (default 3),
# alternating, and prints two rows, decode and prefill, with the median
# tok/s of each program, their ratio (engine / llama.cpp; above 1, the
# engine is faster), and the lowest and highest of the rounds' own ratios
# (the two programs run one after the other in each round, so a wide
# range says the machine's speed moved). Decode is 256 tokens from an empty context, one at a
# time: llama-bench's tg256 against bench's decode rate (-steps 256).
# Prefill is a 128-token prompt in one batch into an empty context:
# llama-bench's pp128 against bench's batched prefill (-prompt 128). Each
# llama-bench call repeats a test 3 times after a warm-up and reports the
# mean rate; each bench call times 3 runs after a warm-up and reports the
# rate of the median. llama.cpp keeps its defaults otherwise (an f16 KV
# cache, no flash attention). Other work on the machine moves both: compare
# only numbers from one run of this script.
#
# A run that finishes is appended to engine/cmd/bench/results.md (see
# versus-common.sh, which the three versus scripts share).
set -eu

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
	echo "usage: $0 LLAMACPP_BUILD_DIR MODELS_DIR [ROUNDS]" >&2
	exit 2
fi
lcp=$1 models=$2 rounds=${3:-3}
for f in "$lcp/llama-bench" "$lcp/llama-convert-llama2c-to-ggml"; do
	[ -x "$f" ] || { echo "$0: $f: no such program" >&2; exit 1; }
done
for f in "$models/stories260K.bin" "$models/tok512.bin"; do
	[ -f "$f" ] || { echo "$0: $f: no such file" >&2; exit 1; }
done
target=engine/models/target.bin targettok=engine/models/tokenizer.bin
for f in "$target" "$targettok"; do
	[ -f "$f" ] || { echo "$0: $f: no such file" >&2; exit 1; }
done
big=${WITH_110M:-}

cmdline="$0 $*"
. "$(dirname "$0")/versus-common.sh"
"$tmp/bench" -make-model "$tmp/random15M.bin" -make-tokenizer "$tmp/tok32000.bin" \
	-dim 288 -hidden 768 -layers 6 -heads 6 -kv-heads 6 -vocab 32000 -seq-len 256 >/dev/null
if [ -n "$big" ]; then
	"$tmp/bench" -make-model "$tmp/random110M.bin" \
		-dim 768 -hidden 2048 -layers 12 -heads 12 -kv-heads 12 -vocab 32000 -seq-len 1024 >/dev/null
fi

# convert MODEL TOKENIZER GGUF writes MODEL, with TOKENIZER as its
# vocabulary, as an f32 GGUF file.
convert() {
	if ! "$lcp/llama-convert-llama2c-to-ggml" --copy-vocab-from-model "$2" \
		--llama2c-model "$1" --llama2c-output-model "$3" >"$tmp/convert.log" 2>&1 || [ ! -s "$3" ]; then
		echo "$0: converting $1 failed:" >&2
		tail -n 20 "$tmp/convert.log" >&2
		exit 1
	fi
}
convert "$tmp/random15M.bin" "$tmp/tok32000.bin" "$tmp/random15M.gguf"
convert "$models/stories260K.bin" "$models/tok512.bin" "$tmp/stories260K.gguf"
convert "$target" "$targettok" "$tmp/target.gguf"
if [ -n "$big" ]; then convert "$tmp/random110M.bin" "$tmp/tok32000.bin" "$tmp/random110M.gguf"; fi

# cpp_rates GGUF THREADS prints llama.cpp's decode and prefill tok/s.
cpp_rates() {
	"$lcp/llama-bench" -m "$1" -p 128 -n 256 -t "$2" -r 3 -o jsonl 2>"$tmp/llama-bench.log" >"$tmp/llama-bench.out" ||
		{ echo "$0: llama-bench on $1 failed:" >&2; tail -n 20 "$tmp/llama-bench.log" >&2; exit 1; }
	awk 'function num(k,   s) { s = $0; sub(".*\"" k "\": *", "", s); sub("[,}].*", "", s); return s + 0 }
		num("n_gen") > 0 { tg = num("avg_ts") }
		num("n_prompt") > 0 { pp = num("avg_ts") }
		END { if (tg == "" || pp == "") exit 1; print tg, pp }' "$tmp/llama-bench.out" ||
		{ echo "$0: no tg and pp figures from llama-bench on $1" >&2; exit 1; }
}

# go_rates MODEL THREADS prints the engine's decode and prefill tok/s.
go_rates() {
	"$tmp/bench" -model "$1" -steps 256 -threads "$2" -prompt 128 -runs 3 -no-cache 0 -json >"$tmp/bench.out" ||
		{ echo "$0: bench on $1 failed" >&2; exit 1; }
	awk -F': ' '/^  "[a-z_]+": \{/ { part = $1 }
		/"tok_per_s"/ { gsub(/,/, "", $2); r[part] = $2 }
		END { d = r["  \"decode\""]; p = r["  \"prefill_batched\""]; if (d == "" || p == "") exit 1; print d, p }' "$tmp/bench.out" ||
		{ echo "$0: no decode and prefill figures from bench on $1" >&2; exit 1; }
}

say '%-28s %-8s %7s %14s %12s %7s %13s\n' model test threads "llama.cpp tok/s" "engine tok/s" ratio "round ratios"
row() { # NAME GGUF MODEL THREADS
	: >"$tmp/cd" && : >"$tmp/cp" && : >"$tmp/gd" && : >"$tmp/gp"
	i=0
	while [ $i -lt "$rounds" ]; do
		cpp_rates "$2" "$4" >"$tmp/c"
		go_rates "$3" "$4" >"$tmp/g"
		read -r d p <"$tmp/c" && echo "$d" >>"$tmp/cd" && echo "$p" >>"$tmp/cp"
		read -r d p <"$tmp/g" && echo "$d" >>"$tmp/gd" && echo "$p" >>"$tmp/gp"
		i=$((i + 1))
	done
	for test in decode prefill; do
		case $test in decode) cf=$tmp/cd gf=$tmp/gd ;; *) cf=$tmp/cp gf=$tmp/gp ;; esac
		c=$(median <"$cf") g=$(median <"$gf")
		say '%-28s %-8s %7d %14.1f %12.1f %7.2f %13s\n' "$1" "$test" "$4" "$c" "$g" "$(echo "$g $c" | awk '{ print $1 / $2 }')" "$(spread "$cf" "$gf")"
	done
}

for t in 1 2; do
	row "stories15M shape (random)" "$tmp/random15M.gguf" "$tmp/random15M.bin" $t
	row "stories260K" "$tmp/stories260K.gguf" "$models/stories260K.bin" $t
	row "default target" "$tmp/target.gguf" "$target" $t
	if [ -n "$big" ]; then row "stories110M shape (random)" "$tmp/random110M.gguf" "$tmp/random110M.bin" $t; fi
done
say '%s\n' "(decode: 256 tokens from an empty context; prefill: 128 tokens in one batch; ratio = engine / llama.cpp; rounds: $rounds)"
record "llama.cpp's llama-bench, $("$lcp/llama-bench" --version 2>&1 | tr '\n' ' ' | sed 's/ *$//')"
