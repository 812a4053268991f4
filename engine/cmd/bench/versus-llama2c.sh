#!/bin/sh
# versus-llama2c.sh: decode speed of this engine and of llama2.c's run.c,
# side by side on this machine, greedy, runs interleaved.
#
# Usage (from the repository's root; run by hand, never in CI):
#
#	engine/cmd/bench/versus-llama2c.sh LLAMA2C_DIR MODELS_DIR [ROUNDS]
#
# LLAMA2C_DIR is a checkout of github.com/karpathy/llama2.c: its run.c is
# compiled from there into a temporary directory (this repository holds no
# copy of it), with -Ofast -march=native, and again with -fopenmp for the
# two-thread rows when the compiler has OpenMP. MODELS_DIR holds
# stories260K.bin and tok512.bin. A model of the stories15M shape with
# random weights, and a tokenizer for it, are written to the temporary
# directory by bench -make-model, so nothing is downloaded. The course's
# default target (engine/models/target.bin) has rows of its own. With
# WITH_110M=1 in the environment, a model of the 110M shape (dim 768, 12 layers,
# 440 MB of random weights, 1024 positions) is made and measured too: its
# rows take some minutes.
#
# Each row runs both programs ROUNDS times (default 5), alternating, and
# prints the median tok/s of each, their ratio, and the lowest and highest
# of the rounds' own ratios (each round runs the two one after the other,
# so a wide range says the machine's speed moved). Other work on the
# machine moves both: compare only numbers from one run of this script.
#
# Both decode the same positions. run.c stops where the model chooses BOS
# (token 1), which a trained model can do after a few dozen tokens, so the
# engine's decode stops there too (bench -until-bos). The engine's figure
# is bench's decode rate: the median of RUNS runs after a warm-up (5, or
# more for a model whose text is short or whose step is quick, so that a
# round times about as long for every row), every token timed in
# nanoseconds. run.c times its decode in whole milliseconds (and
# leaves the first token out), which for a short text is a coarse clock:
# so a round runs it again and again for at least a second, and its figure
# is the harmonic mean of the rates it reports. As every run makes the
# same tokens, that is all their tokens over all their time, and the
# millisecond roundings, as often down as up, cancel out.
#
# Two more columns give the cost of everything around the forward pass,
# as a share of the raw decode's rate: "Generate" is bench's Generate row
# (decoding.Generate decoding greedily, with its sampler, log-probabilities
# and text, its runs alternating with the raw decode's), and "generate"
# is the generate command, -temperature 0 from an empty prompt, writing
# its text to a file: the decode rate it reports over the decode rate of
# a bench run beside it, the median of 10 such pairs a round, half of
# them with the bench run first (a process's rate moves with the
# machine's from one second to the next, so each pair runs close
# together; see cmd_ratio). The command stops
# at the model's end of text (an EOS, where run.c goes on to BOS), so its
# text can be a token shorter.
#
# A run that finishes is appended to engine/cmd/bench/results.md (see
# versus-common.sh, which the three versus scripts share).
set -eu

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
	echo "usage: $0 LLAMA2C_DIR MODELS_DIR [ROUNDS]" >&2
	exit 2
fi
l2c=$1 models=$2 rounds=${3:-5}
for f in "$l2c/run.c" "$models/stories260K.bin" "$models/tok512.bin"; do
	[ -f "$f" ] || { echo "$0: $f: no such file" >&2; exit 1; }
done
cc=${CC:-cc}
cmdline="$0 $*"
. "$(dirname "$0")/versus-common.sh"
go build -o "$tmp/generate" ./engine/cmd/generate
$cc -Ofast -march=native -o "$tmp/run" "$l2c/run.c" -lm
omp=
if $cc -Ofast -march=native -fopenmp -o "$tmp/runomp" "$l2c/run.c" -lm 2>/dev/null; then omp=1; fi
"$tmp/bench" -make-model "$tmp/random15M.bin" -make-tokenizer "$tmp/tok32000.bin" \
	-dim 288 -hidden 768 -layers 6 -heads 6 -kv-heads 6 -vocab 32000 -seq-len 256 >/dev/null

# c_rate MODEL TOKENIZER STEPS THREADS prints run.c's tok/s: the harmonic
# mean of the rates of at least 3 runs, run for at least a second. A run
# too short for run.c's clock (it prints inf) adds its tokens and no time.
c_rate() {
	prog=$tmp/run
	[ "$4" -gt 1 ] && prog=$tmp/runomp
	until=$(($(date +%s%N) + 1000000000)) n=0
	while [ $n -lt 3 ] || [ "$(date +%s%N)" -lt $until ]; do
		OMP_NUM_THREADS=$4 "$prog" "$1" -z "$2" -t 0 -n "$3" -i "" 2>&1 >/dev/null | awk '/achieved tok\/s/ { print $NF }'
		n=$((n + 1))
	done | awk '{ n++ } $1 !~ /inf/ && $1 > 0 { s += 1 / $1 } END { if (n == 0) exit 1; if (s > 0) printf "%f\n", n / s; else print "inf" }'
}

# go_rate MODEL TOKENIZER STEPS THREADS RUNS prints the engine's decode tok/s,
# and appends the positions it decoded to "$tmp/positions" and its
# Generate row's rate over the decode's to "$tmp/gen".
go_rate() {
	"$tmp/bench" -model "$1" -tokenizer "$2" -steps "$3" -threads "$4" -until-bos -prompt 8 -runs "$5" -no-cache 0 -json >"$tmp/json"
	awk -F': ' '/"tokens"/ { gsub(/,/, "", $2); print $2; exit }' "$tmp/json" >"$tmp/positions"
	awk '/"generate_vs_decode"/ { on = 1 } on && /"median"/ { sub(/.*: */, ""); sub(/,/, ""); print; exit }' "$tmp/json" >>"$tmp/gen"
	awk -F': ' '/"tok_per_s"/ { gsub(/,/, "", $2); print $2; exit }' "$tmp/json"
}

# cmd_ratio MODEL TOKENIZER STEPS THREADS prints the median of 10 ratios of
# the decode tok/s the generate command reports to that of a bench run
# beside it: in half the pairs the bench run goes first, in the other
# half the command, so that neither always runs on a machine the other
# has just warmed up or worn down.
cmd_ratio() {
	for pair in 1 2 3 4 5 6 7 8 9 10; do
		if [ $((pair % 2)) -eq 1 ]; then
			d=$(bench_decode "$@") c=$(cmd_decode "$@")
		else
			c=$(cmd_decode "$@") d=$(bench_decode "$@")
		fi
		echo "$c $d" | awk '{ print $1 / $2 }'
	done | median
}

# bench_decode MODEL TOKENIZER STEPS THREADS prints the decode tok/s of one
# bench run (after its warm-up run).
bench_decode() {
	"$tmp/bench" -model "$1" -tokenizer "$2" -steps "$3" -threads "$4" -until-bos -prompt 8 -runs 1 -no-cache 0 -json |
		awk -F': ' '/"tok_per_s"/ { gsub(/,/, "", $2); print $2; exit }'
}

# cmd_decode MODEL TOKENIZER STEPS THREADS prints the decode tok/s the
# generate command reports, greedy from an empty prompt, its text going
# to a file.
cmd_decode() {
	GOMAXPROCS=$4 "$tmp/generate" -model "$1" -tokenizer "$2" -n "$3" -temperature 0 -prompt "" 2>&1 >"$tmp/text" |
		sed -n 's/.* new tokens\{0,1\} in .* (\([0-9.]*\) tok\/s).*/\1/p'
}

say '%-29s %7s %9s %10s %12s %6s %12s %8s %8s\n' model threads positions "C tok/s" "engine tok/s" ratio "round ratios" Generate generate
row() { # NAME MODEL TOKENIZER STEPS THREADS [RUNS]
	: >"$tmp/c" && : >"$tmp/go" && : >"$tmp/gen" && : >"$tmp/cmd"
	i=0
	while [ $i -lt "$rounds" ]; do
		c_rate "$2" "$3" "$4" "$5" >>"$tmp/c"
		g=$(go_rate "$2" "$3" "$4" "$5" "${6:-5}")
		echo "$g" >>"$tmp/go"
		cmd_ratio "$2" "$3" "$4" "$5" >>"$tmp/cmd"
		i=$((i + 1))
	done
	c=$(median <"$tmp/c") g=$(median <"$tmp/go")
	say '%-29s %7d %9d %10.1f %12.1f %6.2f %12s %8.3f %8.3f\n' "$1" "$5" "$(cat "$tmp/positions")" "$c" "$g" "$(echo "$g $c" | awk '{ print $1 / $2 }')" "$(spread "$tmp/c" "$tmp/go")" "$(median <"$tmp/gen")" "$(median <"$tmp/cmd")"
}

row "stories15M shape (random)" "$tmp/random15M.bin" "$tmp/tok32000.bin" 256 1
[ -n "$omp" ] && row "stories15M shape (random)" "$tmp/random15M.bin" "$tmp/tok32000.bin" 256 2
row "stories260K" "$models/stories260K.bin" "$models/tok512.bin" 256 1 101
row "stories260K, 512 steps" "$models/stories260K.bin" "$models/tok512.bin" 512 1 101
[ -n "$omp" ] && row "stories260K" "$models/stories260K.bin" "$models/tok512.bin" 256 2 101
row "the course's default target" engine/models/target.bin engine/models/tokenizer.bin 256 1 301
[ -n "$omp" ] && row "the course's default target" engine/models/target.bin engine/models/tokenizer.bin 256 2 301
if [ "${WITH_110M:-}" = 1 ]; then
	"$tmp/bench" -make-model "$tmp/random110M.bin" \
		-dim 768 -hidden 2048 -layers 12 -heads 12 -kv-heads 12 -vocab 32000 -seq-len 1024 >/dev/null
	row "110M shape (random)" "$tmp/random110M.bin" "$tmp/tok32000.bin" 256 1
	if [ -n "$omp" ]; then row "110M shape (random)" "$tmp/random110M.bin" "$tmp/tok32000.bin" 256 2; fi
fi
[ -n "$omp" ] || say '%s\n' "(no two-thread rows: $cc has no OpenMP)"
say '%s\n' "(decode, greedy, until the model chooses BOS or the steps run out; ratio = engine / run.c; Generate, generate = their rate / the engine's decode rate; medians of $rounds rounds)"
l2cv=$(git -C "$l2c" rev-parse --short HEAD 2>/dev/null) && l2cv="commit $l2cv" || l2cv="sha256 $(sha256sum "$l2c/run.c" | cut -c1-12)"
record "llama2.c's run.c ($l2cv), built by $($cc --version | head -n 1) with -Ofast -march=native${omp:+ (and -fopenmp for 2 threads)}"
