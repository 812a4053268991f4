# versus-common.sh: what the versus-*.sh scripts share. Each sources it
# once it has read its arguments; it is not a program of its own.
#
# It checks ROUNDS and that the script runs from the repository's root,
# makes a temporary directory, $tmp (removed on exit), builds
# engine/cmd/bench into it as $tmp/bench, and gives the scripts:
#
#   median, spread  a row's figures from its rounds;
#   say             printf that also keeps the line for the results file;
#   record PEER     appends the finished run to the results file.
#
# The results file is engine/cmd/bench/results.md, or the file RESULTS
# names in the environment (RESULTS=/dev/null keeps nothing). Each run
# that finishes appends a section to it: the command, the commit, the
# date, the machine (its CPU, how many, how busy before and after), the
# program compared with, and the table the script printed. The sections
# go oldest first, so reading down the file shows how the figures moved
# as the engine changed. NOTE in the environment adds a line of its own,
# such as what else the machine was doing.
#
# The scripts set $rounds and, for record, $cmdline before sourcing this.

case $rounds in '' | *[!0-9]* | 0) echo "$0: ROUNDS = $rounds: want a whole number, at least 1" >&2; exit 2 ;; esac
if ! grep -qs 'module github.com/tokenbytoken/course' go.mod; then
	echo "$0: run it from the repository's root" >&2
	exit 2
fi
results=${RESULTS:-engine/cmd/bench/results.md}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/bench" ./engine/cmd/bench
: >"$tmp/table"

# loadavg prints the machine's load average over the last minute, or "?"
# where /proc/loadavg is not.
loadavg() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?'; }
load_before=$(loadavg)
started=$(date -u '+%Y-%m-%d %H:%M UTC')

# median reads numbers, one a line, and prints their median.
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# spread C G reads two files of rates, one a round, and prints the lowest
# and highest of the rounds' ratios (G's rate over C's in the same round):
# how far the machine moved the ratio while the rows ran.
spread() { paste "$1" "$2" | awk '$1 > 0 { r = $2 / $1; if (n++ == 0 || r < lo) lo = r; if (n == 1 || r > hi) hi = r } END { if (n) printf "%.2f-%.2f", lo, hi; else printf "-" }'; }

# say FORMAT ARGS... is printf, the line kept for record too.
say() {
	# shellcheck disable=SC2059 # the format is the caller's
	printf "$@" | tee -a "$tmp/table"
}

# cpu prints the processor's model name.
cpu() {
	m=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo 2>/dev/null | head -n 1)
	[ -n "$m" ] || m=$(sysctl -n machdep.cpu.brand_string 2>/dev/null) || m=unknown
	echo "$m"
}

# record PEER appends this run to the results file: PEER says what the
# engine was compared with (its version, its compiler).
record() {
	commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
	# Changes to tracked files other than the results file make the
	# figures those of a commit plus something.
	if [ -n "$(git status --porcelain --untracked-files=no -- . ":(exclude)$results" 2>/dev/null)" ]; then
		commit="$commit, with uncommitted changes"
	fi
	{
		[ -s "$results" ] || printf '# Benchmark results\n\nRuns of engine/cmd/bench/versus-*.sh, appended by the scripts, oldest first:\nnumbers of one section compare with each other; across sections, the\nmachine, its load and the other program may differ, as each says.\n'
		printf '\n## %s: %s\n\n' "$started" "${0##*/}"
		printf -- '- command: `%s`\n' "$cmdline"
		printf -- '- commit: %s\n' "$commit"
		printf -- '- machine: %s, %s CPUs, %s/%s, %s\n' "$(cpu)" "$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?')" \
			"$(go env GOOS)" "$(go env GOARCH)" "$(go env GOVERSION)"
		printf -- '- load average (1 minute) before and after: %s, %s\n' "$load_before" "$(loadavg)"
		printf -- '- compared with: %s\n' "$1"
		[ -z "${NOTE:-}" ] || printf -- '- note: %s\n' "$NOTE"
		printf '\n```\n'
		cat "$tmp/table"
		printf '```\n'
	} >>"$results"
	echo "(appended to $results)"
}
