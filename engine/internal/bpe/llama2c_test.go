package bpe

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// vocab is a llama2.c vocabulary: its tokens and scores.
type vocab struct {
	tokens []string
	scores []float32
}

// llama2cVocab returns a llama2.c vocabulary: <unk>, <s>, </s>, the 256
// byte tokens (lowercase hex when lower is set), then the given tokens with
// their scores.
func llama2cVocab(lower bool, extra ...any) vocab {
	tokens := []string{"<unk>", "<s>", "</s>"}
	scores := []float32{0, 0, 0}
	for b := range 256 {
		f := "<0x%02X>"
		if lower {
			f = "<0x%02x>"
		}
		tokens = append(tokens, fmt.Sprintf(f, b))
		scores = append(scores, 0)
	}
	for i := 0; i < len(extra); i += 2 {
		tokens = append(tokens, extra[i].(string))
		scores = append(scores, float32(extra[i+1].(float64)))
	}
	return vocab{tokens, scores}
}

func mustLlama2c(t testing.TB, v vocab) *Tokenizer {
	t.Helper()
	tok, err := FromLlama2c(v.tokens, v.scores)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestFromLlama2cRefuses(t *testing.T) {
	for _, c := range []struct {
		tokens []string
		scores []float32
		want   string
	}{
		{[]string{"a"}, nil, "1 pieces but 0 scores"},
		{nil, nil, "empty vocabulary"},
		{[]string{"<unk>", "<s>"}, []float32{0, 0}, "no room for BOS/EOS ids 1/2"},
	} {
		if _, err := FromLlama2c(c.tokens, c.scores); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("FromLlama2c(%q): error %v, want one saying %q", c.tokens, err, c.want)
		}
	}
}

// TestLlama2cEncodesAsRunC shows run.c's ways where they differ from
// llama.cpp's SentencePiece.
func TestLlama2cEncodesAsRunC(t *testing.T) {
	tok := mustLlama2c(t, llama2cVocab(true,
		" ", 1.0, "a", 1.0, "b", 1.0, "ab", 3.0, " a", math.Inf(-1), "<0xc3><0xa9>", 2.0, "<s>", 5.0, "<s", 4.0, "<", 0.0, "s", 0.0, ">", 0.0))
	for _, c := range []struct {
		text     string
		bos, eos bool
		want     []string
	}{
		{"", true, true, []string{"<s>", "</s>"}},
		{"ab", true, false, []string{"<s>", " ", "ab"}}, // " a" scores -Inf: never made
		{"ab", false, true, []string{" ", "ab", "</s>"}},
		{"é", false, false, []string{" ", "<0xc3><0xa9>"}}, // byte tokens merge by their spelling
		{"<s>", false, false, []string{" ", "<s>"}},        // the text "<s>", merged from its characters
		{"\xc3b", false, false, []string{" ", "<0xc3>", "b"}},
	} {
		ids, err := tok.Encode(c.text, c.bos, c.eos, true)
		if err != nil {
			t.Fatal(err)
		}
		if got := tokens(tok, ids); !slices.Equal(got, c.want) {
			t.Errorf("Encode(%q, %v, %v) = %q, want %q", c.text, c.bos, c.eos, got, c.want)
		}
	}
	if got := string(tok.PieceAfter(tok.BOS(), 3+' ')); got != "" {
		t.Errorf("<0x20> after BOS gives %q, want its space dropped", got)
	}
	if got := string(tok.PieceAfter(5, 3+' ')); got != " " {
		t.Errorf("<0x20> after another token gives %q, want a space", got)
	}
	if !tok.IsEndOfGeneration(tok.BOS()) || !tok.IsEndOfGeneration(tok.EOS()) || tok.EndName(tok.EOS()) != "" {
		t.Error("BOS and EOS should end a text, unnamed")
	}
	if tok.IsControl(tok.BOS()) || tok.Type(0) != Unknown || tok.Type(3) != Byte {
		t.Errorf("types: BOS %v, <unk> %v, <0x00> %v", tok.Type(1), tok.Type(0), tok.Type(3))
	}

	v := llama2cVocab(false, "a", 1.0)
	v.tokens = slices.Delete(v.tokens, 3+0xA9, 3+0xAA) // no <0xA9>
	v.scores = slices.Delete(v.scores, 3+0xA9, 3+0xAA)
	gaps := mustLlama2c(t, v)
	if _, err := gaps.Encode("aé", false, false, false); err == nil || !strings.Contains(err.Error(), "byte 0xA9 at offset 2") {
		t.Errorf("a byte with no token: error %v", err)
	}
}

// rescan is the textbook merge: over the pieces' spellings, merge the pair
// whose concatenation is the token of highest score, the leftmost on ties,
// until none is a token. Like run.c, it never makes a token scored -Inf.
func rescan(tok *Tokenizer, spellings []string) []string {
	for {
		best, bestScore := -1, float32(math.Inf(-1))
		for i := 0; i+1 < len(spellings); i++ {
			if id, ok := tok.ids[spellings[i]+spellings[i+1]]; ok && tok.scores[id] > bestScore {
				best, bestScore = i, tok.scores[id]
			}
		}
		if best < 0 {
			return spellings
		}
		spellings[best] += spellings[best+1]
		spellings = slices.Delete(spellings, best+1, best+2)
	}
}

// FuzzMergeMatchesRescan checks the merge by score against the textbook
// loop, for llama2.c's vocabulary and a GGUF SentencePiece one, both full
// of equal scores and overlapping merges, where the order matters.
func FuzzMergeMatchesRescan(f *testing.F) {
	for _, s := range []string{"aaaa", "abcabcab", "ababab aab", "bcaabca", "cabab", "a é b"} {
		f.Add(s)
	}
	var extra []any
	for i, p := range []string{" ", "a", "b", "c", "aa", "ab", "ba", "bc", "aaa", "abc", "bca", "aab", " a", " ab", "cab", "abab", "<0xC3><0xA9>"} {
		extra = append(extra, p, float64(i%3))
	}
	llama2c := mustLlama2c(f, llama2cVocab(false, extra...))
	spec := spmSpec()
	for i, p := range []string{"▁", "a", "b", "c", "aa", "ab", "ba", "bc", "aaa", "abc", "bca", "aab", "▁a", "▁ab", "cab", "abab"} {
		if !slices.Contains(spec.Tokens, p) {
			spec.Tokens = append(spec.Tokens, p)
			spec.Types = append(spec.Types, int32(Normal))
			spec.Scores = append(spec.Scores, float32(i%3))
		}
	}
	gguf := mustNew(f, spec)
	f.Fuzz(func(t *testing.T, s string) {
		for _, tok := range []*Tokenizer{llama2c, gguf} {
			if s == "" || len(s) > 1000 {
				return
			}
			var spelled string
			var pieces []piece
			if tok.llama2c {
				var err error
				if spelled, pieces, err = tok.splitLlama2c(tok.spmText(s, true)); err != nil {
					t.Fatal(err)
				}
			} else {
				spelled = tok.spmText(s, true)
				pieces = tok.splitSPM(spelled)
			}
			var spellings []string
			for _, p := range pieces {
				spellings = append(spellings, spelled[p.start:p.start+p.n])
			}
			want := rescan(tok, spellings)
			tok.mergeByScore(spelled, pieces)
			var got []string
			for i := int32(0); i >= 0; i = pieces[i].next {
				got = append(got, spelled[pieces[i].start:pieces[i].start+pieces[i].n])
			}
			if !slices.Equal(got, want) {
				t.Fatalf("llama2c %v: merging %q gives %q, the rescanning merge %q", tok.llama2c, s, got, want)
			}
		}
	})
}
