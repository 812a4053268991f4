package bpe

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/tokenbytoken/course/engine/gguf"
	"github.com/tokenbytoken/course/engine/internal/testmodel"
)

// The SmolLM2 model file is put in kernel/.models/ by the project's install
// step (see testmodel), and llama.cpp's tokenizations of it are kept beside
// the checkout in shared/models/smollm2/; the tests that need only the
// latter skip when it is absent.
var smolLM2Shared = filepath.Join("..", "..", "..", "..", "shared", "models", "smollm2")

// specFromGGUF reads the tokenizer Spec of the GGUF file at path.
func specFromGGUF(path string) (Spec, error) {
	f, err := gguf.Open(path)
	if err != nil {
		return Spec{}, err
	}
	defer f.Close()
	return SpecFromGGUF(f)
}

var smolLM2 = sync.OnceValues(func() (*Tokenizer, error) {
	root, err := testmodel.Root()
	if err != nil {
		return nil, err
	}
	spec, err := specFromGGUF(filepath.Join(root, testmodel.SmolLM2))
	if err != nil {
		return nil, err
	}
	return New(spec)
})

// smolLM2Tokenizer returns SmolLM2's tokenizer; without the model file the
// test is skipped, or fails where the install step has run.
func smolLM2Tokenizer(t testing.TB) *Tokenizer {
	t.Helper()
	testmodel.Path(t, testmodel.SmolLM2)
	tok, err := smolLM2()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// A recorded tokenization: ids with special tokens taken as plain text,
// ids_special with them recognised, both with the model's BOS/EOS added as
// it asks. Text that is not valid UTF-8 is given in hex instead.
type recorded struct {
	Vocab string `json:"vocab"`
	recordedText
	IDs        []int `json:"ids"`
	IDsSpecial []int `json:"ids_special"`
}

type recordedText struct {
	Text string `json:"text"`
	Hex  string `json:"hex"`
}

func (r recordedText) text(t *testing.T) string {
	if r.Hex == "" {
		return r.Text
	}
	b, err := hex.DecodeString(r.Hex)
	if err != nil {
		t.Fatalf("bad hex %q: %v", r.Hex, err)
	}
	return string(b)
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
		text := r.text(t)
		if got := encode(tok, text, true, false); !slices.Equal(got, r.IDs) {
			t.Errorf("%sEncode(%q, parseSpecial=false)\n got %v\nwant %v", r.Vocab, text, got, r.IDs)
		}
		if got := encode(tok, text, true, true); !slices.Equal(got, r.IDsSpecial) {
			t.Errorf("%sEncode(%q, parseSpecial=true)\n got %v\nwant %v", r.Vocab, text, got, r.IDsSpecial)
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

// TestOtherVocabulariesMatchLlamaCpp checks tokenizations recorded with
// llama.cpp for the vocabulary-only GGUF files that llama.cpp keeps in its
// models/ folder (ggml-vocab-NAME.gguf: Llama 1 and Phi-3 SentencePiece,
// Llama 3, Qwen 2, GPT-2, StarCoder, MPT, Refact, Command-R). They are not
// part of this project: set BPE_LLAMACPP_VOCABS to a folder holding them to
// run this test.
func TestOtherVocabulariesMatchLlamaCpp(t *testing.T) {
	dir := os.Getenv("BPE_LLAMACPP_VOCABS")
	if dir == "" {
		t.Skip("BPE_LLAMACPP_VOCABS is not set")
	}
	byVocab := map[string][]recorded{}
	var names []string
	for _, r := range readJSONL[recorded](t, filepath.Join("testdata", "llamacpp-vocabs.jsonl")) {
		if byVocab[r.Vocab] == nil {
			names = append(names, r.Vocab)
		}
		byVocab[r.Vocab] = append(byVocab[r.Vocab], r)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			spec, err := specFromGGUF(filepath.Join(dir, "ggml-vocab-"+name+".gguf"))
			if err != nil {
				t.Fatal(err)
			}
			tok, err := New(spec)
			if err != nil {
				t.Fatal(err)
			}
			checkRecorded(t, tok, byVocab[name])
		})
	}
}

// TestPreTokenizersMatchLlamaCpp checks the words each pre-tokenizer cuts
// texts into against the words llama.cpp's pre-tokenizer gives (recorded
// from its unicode_regex_split). No vocabulary is needed.
func TestPreTokenizersMatchLlamaCpp(t *testing.T) {
	type split struct {
		Pre string `json:"pre"`
		recordedText
		Words    []string `json:"words"`
		WordsHex []string `json:"words_hex"`
	}
	recs := readJSONL[split](t, filepath.Join("testdata", "llamacpp-split.jsonl"))
	if len(recs) == 0 {
		t.Fatal("no recorded splits")
	}
	for _, r := range recs {
		want := r.Words
		for _, h := range r.WordsHex {
			want = append(want, recordedText{Hex: h}.text(t))
		}
		text := r.text(t)
		if got := preTokenizeWords(preTokenizers[r.Pre], text); !slices.Equal(got, want) {
			t.Errorf("%s split %q\n got %q\nwant %q", r.Pre, text, got, want)
		}
	}
}

// preTokenizeWords returns the words p cuts text into, as bytes.
func preTokenizeWords(p preTokenizer, text string) []string {
	cpts := decodeText(text, nil)
	var words []string
	start := 0
	for _, n := range p.split(cpts) {
		var w []byte
		for _, r := range cpts[start : start+n] {
			w = appendRune(w, r)
		}
		words = append(words, string(w))
		start += n
	}
	return words
}

// TestConcurrentEncode encodes the recorded texts from several goroutines
// at once (run it with -race).
func TestConcurrentEncode(t *testing.T) {
	tok := smolLM2Tokenizer(t)
	recs := readJSONL[recorded](t, filepath.Join("testdata", "llamacpp-smollm2.jsonl"))
	texts := make([]string, len(recs))
	for i, r := range recs {
		texts[i] = r.text(t)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for i, r := range recs {
				if got := encode(tok, texts[i], true, true); !slices.Equal(got, r.IDsSpecial) {
					t.Errorf("Encode(%q) = %v, want %v", texts[i], got, r.IDsSpecial)
				}
			}
		})
	}
	wg.Wait()
}
