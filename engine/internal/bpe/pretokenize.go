package bpe

// Before merging, byte-level BPE cuts text into words, so that no token
// spans, say, the end of one word and the start of the next. Each model
// family was trained with its own cutting rule, written as a regular
// expression in its Hugging Face tokenizer.json; the GGUF file names the
// family in tokenizer.ggml.pre. The expressions use lookahead (\s+(?!\S)) and
// Unicode classes that Go's regexp cannot express, so each is written here
// by hand, following llama.cpp's own hand-written versions rule for rule,
// corner cases included.
//
// A pre-tokenizer is a list of rules applied in turn: each rule cuts every
// piece left by the previous one, and never joins pieces. Pieces are
// measured in code points.

// A rule appends to out the lengths of the pieces it cuts s into.
type rule func(s []rune, out []int) []int

// A preTokenizer is a family's list of rules.
type preTokenizer struct {
	rules []rule
	// ignoreMerges: a word that is itself in the vocabulary becomes that
	// token without going through the merges (Llama 3 does this; the merges
	// do not always rebuild every long token).
	ignoreMerges bool
}

// The pre-tokenizer rule sets, by the names llama.cpp gives them in
// tokenizer.ggml.pre. Names listed together share a rule set in llama.cpp
// ("gpt2" is taken as well as its "gpt-2").
var preTokenizers = map[string]preTokenizer{}

func init() {
	register := func(p preTokenizer, names ...string) {
		for _, n := range names {
			preTokenizers[n] = p
		}
	}
	register(preTokenizer{rules: []rule{gpt2Words}},
		"gpt-2", "gpt2", "phi-2", "mpt", "olmo")
	// SmolLM, StarCoder and others: every digit (any \p{N} character) is a
	// word of its own, then GPT-2's rule.
	register(preTokenizer{rules: []rule{isolate(number, 1), gpt2Words}},
		"smollm", "starcoder", "refact", "command-r", "codeshell", "exaone", "minerva-7b")
	register(preTokenizer{rules: []rule{llama3Words(3)}, ignoreMerges: true},
		"llama-bpe", "llama3", "llama-v3", "falcon3", "pixtral")
	register(preTokenizer{rules: []rule{llama3Words(3)}},
		"dbrx", "smaug-bpe")
	register(preTokenizer{rules: []rule{llama3Words(1)}},
		"qwen2", "deepseek-r1-qwen", "stablelm2")
	// llama.cpp's fallback for files that name no pre-tokenizer: runs of
	// punctuation first, then GPT-2's rule, then runs of digits, then
	// groups of three ASCII digits.
	register(preTokenizer{rules: []rule{punctuationRuns, gpt2Words, isolate(number, 0), asciiDigitTriples}},
		"default", "")
}

// split cuts text (already decoded to code points) into words by p's rules
// and returns the words' lengths in code points.
func (p preTokenizer) split(cpts []rune) []int {
	pieces := []int{len(cpts)}
	for _, r := range p.rules {
		var out []int
		start := 0
		for _, n := range pieces {
			out = r(cpts[start:start+n], out)
			start += n
		}
		pieces = out
	}
	return pieces
}

// cursor reads a piece of text for a rule: past the end, at gives -1 and
// kind gives none, so that rules can look ahead without bounds checks.
type cursor []rune

func (s cursor) at(i int) rune {
	if i < len(s) {
		return s[i]
	}
	return -1
}

func (s cursor) kind(i int) kind {
	if i < len(s) {
		return kindOf(s[i])
	}
	return none
}

// contraction returns the length of an English contraction suffix ('s 't
// 're 've 'm 'll 'd) at s[i:], or 0. foldCase also accepts upper case ('S,
// 'LL, ...), as Llama 3 and Qwen 2 do; GPT-2 does not.
func (s cursor) contraction(i int, foldCase bool) int {
	if s.at(i) != '\'' {
		return 0
	}
	lower := func(r rune) rune {
		if foldCase && 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}
	a, b := lower(s.at(i+1)), lower(s.at(i+2))
	switch {
	case a == 's' || a == 't' || a == 'm' || a == 'd':
		return 2
	case a == 'r' && b == 'e' || a == 'v' && b == 'e' || a == 'l' && b == 'l':
		return 3
	}
	return 0
}

// whitespace returns where a run of whitespace starting at i ends under
// \s+(?!\S)|\s+: the whole run if it ends the piece, otherwise all of it but
// the last character, which is left to start the next word (" world"); a
// single space before a non-space is taken alone.
func (s cursor) whitespace(i int) int {
	n := 0
	for s.kind(i+n) == space {
		n++
	}
	if n > 1 && i+n < len(s) {
		return i + n - 1
	}
	return i + max(n, 1)
}

// gpt2Words is GPT-2's rule:
//
//	's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//
// that is: a contraction; or an optional space and a run of letters, of
// digits, or of other characters; or whitespace.
func gpt2Words(text []rune, out []int) []int {
	s := cursor(text)
	for pos := 0; pos < len(s); {
		end := pos
		if n := s.contraction(pos, false); n > 0 {
			end = pos + n
		} else {
			first := pos
			if s[pos] == ' ' {
				first++
			}
			if k := s.kind(first); k == letter || k == number || k == other {
				end = first
				for s.kind(end) == k {
					end++
				}
			} else {
				end = s.whitespace(pos)
			}
		}
		out = append(out, end-pos)
		pos = end
	}
	return out
}

// llama3Words returns Llama 3's rule, with digits grouped by up to digits
// (3 for Llama 3; 1 for Qwen 2, whose expression has \p{N} for \p{N}{1,3}):
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// Unlike GPT-2's, a word of letters may start with any one character that
// is not a letter, a digit or a line break ("(word", " word"), and line
// breaks are kept with the whitespace or punctuation before them.
func llama3Words(digits int) rule {
	return func(text []rune, out []int) []int {
		s := cursor(text)
		for pos := 0; pos < len(s); {
			c, k := s[pos], s.kind(pos)
			end := pos
			switch n := s.contraction(pos, true); {
			case n > 0:
				end = pos + n
			case c != '\r' && c != '\n' && k != number && (k == letter || s.kind(pos+1) == letter):
				end = pos + 1
				for s.kind(end) == letter {
					end++
				}
			case k == number:
				// A run of digits is cut into groups of up to `digits`,
				// from its start.
				end = pos + 1
				for end-pos < digits && s.kind(end) == number {
					end++
				}
			case c == ' ' && s.kind(pos+1) == other || k == other:
				end = pos
				if c == ' ' {
					end++
				}
				for s.kind(end) == other {
					end++
				}
				for s.at(end) == '\r' || s.at(end) == '\n' {
					end++
				}
			default:
				// Whitespace. If it holds line breaks, the word runs to
				// the last of them (\s*[\r\n]+).
				n, lastBreak := 0, -1
				for ; s.kind(pos+n) == space; n++ {
					if s[pos+n] == '\r' || s[pos+n] == '\n' {
						lastBreak = pos + n + 1
					}
				}
				if lastBreak > 0 {
					end = lastBreak
				} else {
					end = s.whitespace(pos)
				}
			}
			out = append(out, end-pos)
			pos = end
		}
		return out
	}
}

// isolate returns a rule that cuts out the characters of kind k: in runs
// of up to maxRun characters from the start of each run, or whole runs if
// maxRun is 0. isolate(number, 1) is the expression \p{N}, isolate(number,
// 0) is \p{N}+.
func isolate(k kind, maxRun int) rule {
	return cutRuns(func(r rune) bool { return kindOf(r) == k }, maxRun)
}

// punctuationRuns is the expression [\p{P}\$\+<=>\^~\|]+: runs of
// punctuation and of the ASCII symbols listed.
var punctuationRuns = cutRuns(func(r rune) bool {
	switch r {
	case '$', '+', '<', '=', '>', '^', '~', '|':
		return true
	}
	return isPunct(r)
}, 0)

// asciiDigitTriples is the expression [0-9][0-9][0-9].
var asciiDigitTriples = cutRunsExactly(func(r rune) bool { return '0' <= r && r <= '9' }, 3)

// cutRuns returns a rule that cuts out the runs of characters for which in
// is true, each run in parts of up to maxRun characters (whole if maxRun
// is 0); the text between runs is left as pieces of its own.
func cutRuns(in func(rune) bool, maxRun int) rule {
	return func(s []rune, out []int) []int {
		gap, run := 0, 0
		for _, r := range s {
			if !in(r) {
				if run > 0 {
					out = append(out, run)
					run = 0
				}
				gap++
				continue
			}
			if gap > 0 {
				out = append(out, gap)
				gap = 0
			}
			if run == maxRun && maxRun > 0 {
				out = append(out, run)
				run = 0
			}
			run++
		}
		if gap > 0 {
			out = append(out, gap)
		}
		if run > 0 {
			out = append(out, run)
		}
		return out
	}
}

// cutRunsExactly returns a rule that cuts out, from each run of characters
// for which in is true, consecutive groups of exactly n characters from the
// run's start; what is left of the run stays with the text around it.
func cutRunsExactly(in func(rune) bool, n int) rule {
	return func(s []rune, out []int) []int {
		prev := 0 // start of the text not yet cut out
		for i := 0; i < len(s); {
			if !in(s[i]) {
				i++
				continue
			}
			j := i
			for j < len(s) && in(s[j]) {
				j++
			}
			for ; j-i >= n; i += n {
				if i > prev {
					out = append(out, i-prev)
				}
				out = append(out, n)
				prev = i + n
			}
			i = j
		}
		if len(s) > prev {
			out = append(out, len(s)-prev)
		}
		return out
	}
}
