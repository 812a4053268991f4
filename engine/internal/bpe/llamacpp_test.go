package bpe

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// The SmolLM2 model file is put in kernel/.models/ by the project's install
// step, and llama.cpp's tokenizations of it are kept beside the checkout in
// shared/models/smollm2/; the tests that need them skip when they are
// absent.
var (
	smolLM2Path   = filepath.Join("..", "..", "..", "kernel", ".models", "smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf")
	smolLM2Shared = filepath.Join("..", "..", "..", "..", "shared", "models", "smollm2")
)

var smolLM2 = sync.OnceValues(func() (*Tokenizer, error) {
	spec, err := specFromGGUF(smolLM2Path)
	if err != nil {
		return nil, err
	}
	return New(spec)
})

// smolLM2Tokenizer returns SmolLM2's tokenizer, or skips the test when the
// model file is absent.
func smolLM2Tokenizer(t testing.TB) *Tokenizer {
	t.Helper()
	if _, err := os.Stat(smolLM2Path); err != nil {
		t.Skipf("SmolLM2 model not present: %v", err)
	}
	tok, err := smolLM2()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// A recorded tokenization: ids with special tokens taken as plain text,
// ids_special with them recognised.
type recorded struct {
	Text       string `json:"text"`
	IDs        []int  `json:"ids"`
	IDsSpecial []int  `json:"ids_special"`
}

func readJSONL[T any](t *testing.T, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func checkRecorded(t *testing.T, tok *Tokenizer, recs []recorded) {
	t.Helper()
	if len(recs) == 0 {
		t.Fatal("no recorded tokenizations")
	}
	for _, r := range recs {
		if got := tok.Encode(r.Text, true, false); !slices.Equal(got, r.IDs) {
			t.Errorf("Encode(%q, parseSpecial=false)\n got %v\nwant %v", r.Text, got, r.IDs)
		}
		if got := tok.Encode(r.Text, true, true); !slices.Equal(got, r.IDsSpecial) {
			t.Errorf("Encode(%q, parseSpecial=true)\n got %v\nwant %v", r.Text, got, r.IDsSpecial)
		}
	}
}

// TestSmolLM2MatchesLlamaCpp checks the 40 tokenizations recorded with
// llama.cpp in shared/models/smollm2.
func TestSmolLM2MatchesLlamaCpp(t *testing.T) {
	path := filepath.Join(smolLM2Shared, "llamacpp-tokenize.jsonl")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("llama.cpp references not present: %v", err)
	}
	tok := smolLM2Tokenizer(t)
	recs := readJSONL[recorded](t, path)
	if len(recs) != 40 {
		t.Fatalf("%s has %d lines, want 40", path, len(recs))
	}
	checkRecorded(t, tok, recs)
}

// TestSmolLM2MatchesLlamaCppMore checks more texts recorded with
// llama.cpp's llama-tokenize (see testdata/README.md).
func TestSmolLM2MatchesLlamaCppMore(t *testing.T) {
	tok := smolLM2Tokenizer(t)
	checkRecorded(t, tok, readJSONL[recorded](t, filepath.Join("testdata", "llamacpp-smollm2.jsonl")))
}
