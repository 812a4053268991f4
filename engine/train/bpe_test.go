package train

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tokenbytoken/course/engine"
)

// sampleGo is a little Go text with the usual shapes: comments, nested
// blocks, strings, a non-ASCII character.
const sampleGo = `// Package demo says héllo.
package demo

import "fmt"

// Greet prints a greeting for each name.
func Greet(names []string) error {
	for i, name := range names {
		if name == "" {
			return fmt.Errorf("name %d is empty", i)
		}
		fmt.Println("hello, " + name)
	}
	return nil
}

func helper(x int) int {
	if x > 0 {
		return x * 2
	}
	return -x
}
`

// stdlibTexts reads a few real files of the installed Go source.
func stdlibTexts(t testing.TB) []string {
	t.Helper()
	c, err := LoadGoSource(filepath.Join(runtime.GOROOT(), "src", "strings"), SourceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range append(c.Train, c.Val...) {
		out = append(out, s.Text)
	}
	return out
}

func TestTrainTokenizerLayoutAndRoundTrip(t *testing.T) {
	texts := stdlibTexts(t)
	const V = 600
	tok, err := TrainTokenizer(texts, V)
	if err != nil {
		t.Fatal(err)
	}
	if tok.VocabSize() != V {
		t.Fatalf("vocabulary has %d tokens, want %d", tok.VocabSize(), V)
	}
	for id, want := range []string{"<unk>", "<s>", "</s>"} {
		if tok.Piece(id) != want {
			t.Errorf("id %d is %q, want %q", id, tok.Piece(id), want)
		}
	}
	if tok.BOS() != 1 || tok.EOS() != 2 {
		t.Errorf("BOS, EOS = %d, %d; want 1, 2", tok.BOS(), tok.EOS())
	}
	for b := range 256 {
		if p := tok.Piece(3 + b); p != "<0x"+strings.ToUpper(string("0123456789abcdef"[b>>4]))+strings.ToUpper(string("0123456789abcdef"[b&15]))+">" {
			t.Fatalf("id %d is %q, want the byte token of 0x%02X", 3+b, p, b)
		}
	}
	// Learned merges come last, scored in strictly decreasing order.
	var merges int
	for id := numFixed + 1; id < V; id++ {
		if len(tok.Piece(id)) > 1 && tok.Score(id) >= tok.Score(id-1) && len(tok.Piece(id-1)) > 1 {
			t.Fatalf("merge %d (%q) scores %v, not below the previous %v", id, tok.Piece(id), tok.Score(id), tok.Score(id-1))
		}
		if tok.Score(id) < 0 {
			merges++
		}
	}
	if merges < (V-numFixed)*3/4 {
		t.Errorf("only %d merges learned", merges)
	}
	if _, ok := tok.Lookup("return"); !ok {
		t.Error(`"return" did not become a token of Go text`)
	}

	// Save and reload as tokenizer.bin; encode and decode round-trip.
	path := filepath.Join(t.TempDir(), "tok.bin")
	if err := tok.Save(path); err != nil {
		t.Fatal(err)
	}
	tok2, err := engine.LoadTokenizer(path, V)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{sampleGo, "x := \"日本語 ✓\" // ünïcödé \x00\xff", " leading space", "\n\ttabs\n"} {
		ids, err := tok2.Encode(text, true, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := tok2.DecodeAll(ids); got != text {
			t.Errorf("round trip changed the text:\n got %q\nwant %q", got, text)
		}
		// Decoding then encoding gives back the same ids.
		again, _ := tok2.Encode(tok2.DecodeAll(ids), true, false)
		if !equalInts(again, ids) {
			t.Errorf("encode(decode(ids)) differs for %q", text)
		}
		if len(text) > 100 && len(ids) > len(text)*4/5 {
			t.Errorf("%d bytes became %d tokens: merges are not used", len(text), len(ids))
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestTrainTokenizerRejectsBadInput(t *testing.T) {
	if _, err := TrainTokenizer([]string{sampleGo}, 256+3); err == nil || !strings.Contains(err.Error(), "too small") {
		t.Errorf("vocabulary of 259: got %v, want a 'too small' error", err)
	}
	if _, err := TrainTokenizer([]string{sampleGo}, 100); err == nil {
		t.Error("vocabulary of 100 accepted")
	}
	if _, err := TrainTokenizer(nil, 1000); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty corpus: got %v", err)
	}
	if _, err := TrainTokenizer([]string{"", ""}, 1000); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("corpus of empty texts: got %v", err)
	}
}

// TestTrainedTokenizerRoundTrips checks a tokenizer trained on real Go
// source: the corpus encoder gives the engine's tokens, and decoding and
// encoding again change nothing.
func TestTrainedTokenizerRoundTrips(t *testing.T) {
	texts := stdlibTexts(t)
	tok, err := TrainTokenizer(texts, 800)
	if err != nil {
		t.Fatal(err)
	}
	enc := NewEncoder(tok)
	samples := []string{sampleGo, "a", "  ", "日本語", "\xff\xfe broken utf-8 \xc3"}
	for _, text := range texts {
		samples = append(samples, text[:min(len(text), 3000)])
	}
	for _, s := range samples {
		want, err := tok.Encode(s, false, false)
		if err != nil {
			t.Fatal(err)
		}
		got, err := enc.Encode(s)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d tokens, engine %d", s[:min(len(s), 40)], len(got), len(want))
		}
		for i := range got {
			if int(got[i]) != want[i] {
				t.Fatalf("%q: token %d is %d, engine %d", s[:min(len(s), 40)], i, got[i], want[i])
			}
		}
		// Round trips: decode(encode(text)) is the text (after BOS the
		// leading space is dropped), and encode(decode(ids)) the ids.
		withBOS := append([]int{tok.BOS()}, want...)
		text := tok.DecodeAll(withBOS)
		if text != s {
			t.Fatalf("decode(encode(%q)) = %q", s[:min(len(s), 40)], text[:min(len(text), 40)])
		}
		again, _ := enc.Encode(text)
		if len(again) != len(want) {
			t.Fatalf("encode(decode(ids)) has %d tokens, want %d", len(again), len(want))
		}
	}
}

func TestSegmentsCutAtFunctions(t *testing.T) {
	segs := Segments(sampleGo)
	if strings.Join(segs, "") != sampleGo {
		t.Fatal("segments do not join back into the text")
	}
	if len(segs) != 3 {
		t.Fatalf("got %d segments, want 3 (header, Greet, helper): %q", len(segs), segs)
	}
	if !strings.HasPrefix(segs[1], "// Greet prints") || !strings.HasPrefix(segs[2], "func helper") {
		t.Errorf("segments start wrong: %q, %q", segs[1][:20], segs[2][:20])
	}
}

func TestLoadGoSourceErrors(t *testing.T) {
	if _, err := LoadGoSource(filepath.Join(t.TempDir(), "missing"), SourceOptions{}); err == nil {
		t.Error("missing directory accepted")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a_test.go"), []byte("package a\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.go"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "c.go"), []byte("// Code generated by hand. DO NOT EDIT.\n\npackage a\n"), 0o644)
	_, err := LoadGoSource(dir, SourceOptions{})
	if err == nil || !strings.Contains(err.Error(), "no non-empty") {
		t.Errorf("directory with only test, empty and generated files: got %v", err)
	}
	if _, err := LoadGoSource(dir, SourceOptions{KeepGenerated: true}); err == nil || !strings.Contains(err.Error(), "only one") {
		t.Errorf("a single usable file: got %v", err)
	}
}

func TestGoSourceRoot(t *testing.T) {
	root, err := GoSourceRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "strings", "strings.go")); err != nil {
		t.Errorf("GoSourceRoot() = %s, which holds no strings/strings.go: %v", root, err)
	}
}
