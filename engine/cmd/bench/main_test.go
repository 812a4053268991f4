//go:build unix

package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/decoding"
	"github.com/tokenbytoken/course/engine/internal/limittest"
)

func TestMain(m *testing.M) { limittest.Main(m, status) }

// commandLimit is the memory the command may use in these tests.
const commandLimit = 1 << 30

// saveModel writes a model of shape c with small weights (bad, when not
// 0, in wq[0]).
func saveModel(t *testing.T, c engine.Config, bad float32) string {
	t.Helper()
	w, err := engine.NewWeights(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, tn := range w.Tensors(c) {
		for i := range tn.Data {
			tn.Data[i] = float32(i%5) * 0.02
		}
	}
	w.Wq[0] += bad
	path := filepath.Join(t.TempDir(), "model.bin")
	if m, err := engine.NewModel(c, w); err != nil {
		t.Fatal(err)
	} else if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBenchFlagsAndFiles runs the command, in a child process under a
// 1 GiB data limit, on every kind of bad flag value and bad input file,
// and on two models that must run in little memory: one with a context of
// a million tokens, and one it writes itself.
func TestBenchFlagsAndFiles(t *testing.T) {
	small := engine.Config{Dim: 16, HiddenDim: 16, NLayers: 2, NHeads: 2, NKVHeads: 2, VocabSize: 32, SeqLen: 64, SharedClassifier: true}
	model := saveModel(t, small, 0)
	nanModel := saveModel(t, small, float32(math.NaN()))
	deep := small
	deep.SeqLen = 1 << 20 // a 64 MB file; its whole KV cache would be 268 GB... of which 8 positions are used
	deep.NLayers, deep.Dim, deep.NHeads, deep.NKVHeads = 1, 8, 1, 1
	deepModel := saveModel(t, deep, 0)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	made := filepath.Join(dir, "made.bin")
	quick := []string{"-runs", "1", "-steps", "8", "-prompt", "8", "-no-cache", "4"}

	for _, c := range []struct {
		args   []string
		status int
		want   string
	}{
		{nil, 2, "-model is required"},
		{[]string{"-model", model, "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"-nosuch"}, 2, "flag provided but not defined: -nosuch"},
		{[]string{"-steps", "x", "-model", model}, 2, `invalid value "x" for flag -steps`},
		{[]string{"-model", model, "-make-model", made}, 2, "use one at a time"},
		{[]string{"-make-model", made, "-steps", "5"}, 2, "-steps applies only when measuring a model"},
		{[]string{"-make-model", made, "-draft-layers", "1", "-runs", "2"}, 2, "-draft-layers, -runs apply only when measuring"},
		{[]string{"-model", model, "-dim", "64"}, 2, "-dim applies only with -make-model"},
		{[]string{"-model", model, "-make-tokenizer", filepath.Join(dir, "t.bin")}, 2, "-make-tokenizer applies only with -make-model"},
		{[]string{"-model", model, "-steps", "0"}, 2, "-steps = 0: must be at least 1"},
		{[]string{"-model", model, "-prompt", "-3"}, 2, "-prompt = -3: must be at least 1"},
		{[]string{"-model", model, "-runs", "0"}, 2, "-runs = 0: must be at least 1"},
		{[]string{"-model", model, "-no-cache", "-1"}, 2, "-no-cache = -1: must be at least 0"},
		{[]string{"-model", model, "-draft-layers", "-1"}, 2, "-draft-layers = -1: must be at least 0"},
		{[]string{"-model", model, "-draft-layers", "1", "-speculate", "0"}, 2, "-speculate = 0: must be at least 1"},
		{[]string{"-model", model, "-draft", model, "-draft-layers", "1"}, 2, "two drafts"},
		{[]string{"-model", model, "-speculate", "3"}, 2, "-speculate = 3 needs a draft"},
		{[]string{"-model", model, "-steps", "100000"}, 2, "must fit the model's context of 64 tokens"},
		{append([]string{"-model", model, "-draft-layers", "2"}, quick...), 2, "-draft-layers = 2: must be between 1 and 1"},
		{[]string{"-model", model, "-shape", "16,16,2,2,2,32,64"}, 2, "-model measures a file and -shape random weights: use one at a time"},
		{[]string{"-shape", "16,16,2"}, 2, `-shape = "16,16,2": want 7 numbers`},
		{[]string{"-shape", "16,16,2,2,2,32,x"}, 2, `"x" is not a whole number`},
		{[]string{"-shape", "16,16,2,5,2,32,64"}, 2, "-shape: n_heads = 5 does not divide dim = 16"},
		{[]string{"-shape", "16,16,2,2,2,32,64", "-dim", "32"}, 2, "-dim applies only with -make-model"},
		{[]string{"-make-model", made, "-shape", "16,16,2,2,2,32,64"}, 2, "-shape applies only when measuring a model (-model or -shape)"},
		{[]string{"-make-model", made, "-threads", "2", "-json"}, 2, "-json, -threads apply only when measuring"},
		{[]string{"-model", model, "-threads", "0"}, 2, "-threads = 0: must be at least 1"},
		{[]string{"-shape", "16,16,2,2,2,32,64", "-threads", "-2"}, 2, "-threads = -2: must be at least 1"},
		{[]string{"-shape", "16,16,2,2,2,32,64", "-threads", "100000"}, 2, "-threads = 100000: this machine has"},
		{[]string{"-shape", "16,16,2,2,2,32,64", "-steps", "65"}, 2, "must fit the model's context of 64 tokens"},
		{[]string{"-make-model", made, "-dim", "0"}, 2, "shape: dim = 0 is out of range"},
		{[]string{"-make-model", made, "-heads", "5"}, 2, "shape: n_heads = 5 does not divide dim = 288"},
		{[]string{"-make-model", made, "-seq-len", "2000000"}, 2, "shape: seq_len = 2000000 is out of range"},
		{[]string{"-make-model", made, "-make-tokenizer", filepath.Join(dir, "t.bin"), "-vocab", "100"}, 2, "-vocab = 100: a tokenizer needs at least 259 tokens"},
		{[]string{"-make-model", made, "-tokenizer", filepath.Join(dir, "t.bin")}, 2, "-tokenizer applies only when measuring"},
		{[]string{"-shape", "16,16,2,2,2,32,64", "-tokenizer", filepath.Join(dir, "t.bin")}, 2, `-tokenizer = "` + filepath.Join(dir, "t.bin") + `" goes with a llama2.c checkpoint`},

		{[]string{"-make-model", made, "-dim", "65536", "-hidden", "262144", "-layers", "64", "-heads", "64", "-kv-heads", "64"}, 1, "TB, but only"},
		{[]string{"-shape", "65536,262144,64,64,64,32000,256"}, 1, "TB, but only"},
		{[]string{"-model", fifo}, 1, "is a named pipe (FIFO)"},
		{[]string{"-model", "/dev/zero"}, 1, "is a character device"},
		{[]string{"-model", filepath.Join(dir, "missing.bin")}, 1, "no such file"},
		{[]string{"-model", nanModel}, 1, "weight wq[0] is NaN"},
		{append([]string{"-model", model, "-draft", fifo}, quick...), 1, "is a named pipe (FIFO)"},
		{append([]string{"-model", model, "-tokenizer", filepath.Join(dir, "missing.bin")}, quick...), 1, "missing.bin: no such file"},
		{append([]string{"-model", model, "-tokenizer", model}, quick...), 1, "-tokenizer = " + model},

		{append([]string{"-model", deepModel}, quick...), 0, "after 8 positions the state's cache holds"},
		{append([]string{"-model", model, "-draft-layers", "1"}, quick...), 0, "speculative  γ=4"},
		{[]string{"-make-model", made, "-dim", "16", "-hidden", "16", "-layers", "1", "-heads", "2", "-kv-heads", "2", "-vocab", "300", "-seq-len", "32", "-make-tokenizer", filepath.Join(dir, "made-tok.bin")}, 0, "wrote " + made},
		{append([]string{"-model", made}, quick...), 0, "decode    8 positions"},
		{append([]string{"-model", made, "-tokenizer", filepath.Join(dir, "made-tok.bin")}, quick...), 0, "tokenizer " + filepath.Join(dir, "made-tok.bin")},
		{append([]string{"-model", model}, quick...), 0, "Generate  8 positions"},
		{append([]string{"-model", made, "-threads", "1"}, quick...), 0, "1 threads (GOMAXPROCS)"},
		{append([]string{"-shape", "16,16,2,2,1,300,32", "-json"}, quick...), 0, `"tok_per_s"`},
		{append([]string{"-shape", "16,16,2,2,1,300,32", "-draft-layers", "1"}, quick...), 0, "made in"},
	} {
		r := limittest.Command(t, commandLimit, c.args...)
		out := r.Stdout + r.Stderr
		if r.Status != c.status || !strings.Contains(out, c.want) {
			t.Errorf("bench %s: status %d, output %q; want status %d and %q", strings.Join(c.args, " "), r.Status, out, c.status, c.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 { // fifo, made.bin, made-tok.bin
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the output directory holds %v; want fifo, made.bin and made-tok.bin, no temporaries", names)
	}
}

// TestBenchJSON checks that -json prints one object that decodes, with the
// figures filled in.
func TestBenchJSON(t *testing.T) {
	var out, errOut strings.Builder
	args := []string{"-shape", "16,16,2,2,1,300,32", "-json", "-runs", "3", "-steps", "8", "-prompt", "8", "-no-cache", "4", "-threads", "1"}
	if s := status(args, &out, &errOut); s != 0 {
		t.Fatalf("bench %s: status %d, %s", strings.Join(args, " "), s, errOut.String())
	}
	var r report
	if err := json.Unmarshal([]byte(out.String()), &r); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out.String())
	}
	if r.Shape.Dim != 16 || r.Shape.KVHeads != 1 || r.Threads != 1 || r.Runs != 3 || r.Loaded != "random" {
		t.Errorf("header %+v", r)
	}
	if r.Decode.Tokens != 8 || !(r.Decode.TokPerS > 0) || !(r.Decode.MinMS <= r.Decode.MedianMS && r.Decode.MedianMS <= r.Decode.MaxMS) {
		t.Errorf("decode %+v", r.Decode)
	}
	var sum float64
	for _, p := range r.DecodeParts {
		sum += p.Share
	}
	if len(r.DecodeParts) == 0 || math.Abs(sum-1) > 1e-6 || r.NoCache == nil || r.NoCache.Tokens != 4 {
		t.Errorf("parts %+v (shares sum to %g), no-cache %+v", r.DecodeParts, sum, r.NoCache)
	}
	g, gr := r.Generate, r.GenerateVsDecode
	if g == nil || gr == nil || g.Tokens != 8 || !(g.TokPerS > 0) || !(g.MinMS <= g.MedianMS && g.MedianMS <= g.MaxMS) ||
		!(gr.Min > 0 && gr.Min <= gr.Median && gr.Median <= gr.Max) || r.Tokenizer != "made up, 300 tokens" {
		t.Errorf("generate %+v, its ratio to decode %+v, tokenizer %q", g, gr, r.Tokenizer)
	}
}

// TestMadeUpTokenizer checks the tokenizer bench makes for a model that
// comes without one: llama2.c's special tokens at 0, 1 and 2 (BOS and EOS
// the ends of a text), byte tokens as far as they fit, and exactly the
// model's vocabulary.
func TestMadeUpTokenizer(t *testing.T) {
	for _, n := range []int{3, 32, 259, 300} {
		tok, err := madeUpTokenizer(n)
		if err != nil {
			t.Fatalf("vocabulary %d: %v", n, err)
		}
		if tok.VocabSize() != n || tok.BOS() != 1 || tok.EOS() != 2 || !tok.IsEnd(1) || !tok.IsEnd(2) || tok.IsEnd(0) {
			t.Errorf("vocabulary %d: %d tokens, BOS %d, EOS %d", n, tok.VocabSize(), tok.BOS(), tok.EOS())
		}
		if n > 3 && tok.Piece(3) != "<0x00>" {
			t.Errorf("vocabulary %d: token 3 is %q, want the byte token <0x00>", n, tok.Piece(3))
		}
		if n == 300 && tok.Piece(299) != " w299" {
			t.Errorf("vocabulary 300: token 299 is %q, want a made-up piece", tok.Piece(299))
		}
	}
}

// TestUntilBOS runs -until-bos on the course's default target, whose
// greedy text from BOS ends with BOS well within its context, and checks
// the positions against a decode done here: the model chooses BOS after
// the last of them and never before. With fewer -steps than that the
// decode runs them all.
func TestUntilBOS(t *testing.T) {
	const modelPath = "../../models/target.bin"
	m, err := engine.LoadModel(modelPath)
	if err != nil {
		t.Fatal(err)
	}
	st := m.NewState()
	want, token := 0, 1
	for pos := range m.Config.SeqLen {
		logits, err := st.Forward(token, pos)
		if err != nil {
			t.Fatal(err)
		}
		if token = decoding.Argmax(logits); token == 1 {
			want = pos + 1
			break
		}
	}
	if want == 0 {
		t.Fatalf("%s never chooses BOS greedily in %d positions: the test needs a model that does", modelPath, m.Config.SeqLen)
	}
	for _, c := range []struct {
		steps, positions int
		ended            bool
	}{{m.Config.SeqLen, want, true}, {want, want, false}, {want - 1, want - 1, false}} {
		var out, errOut strings.Builder
		args := []string{"-model", modelPath, "-until-bos", "-steps", strconv.Itoa(c.steps), "-json", "-runs", "1", "-prompt", "4", "-no-cache", "0"}
		if s := status(args, &out, &errOut); s != 0 {
			t.Fatalf("bench %s: status %d, %s", strings.Join(args, " "), s, errOut.String())
		}
		var r report
		if err := json.Unmarshal([]byte(out.String()), &r); err != nil {
			t.Fatalf("output is not JSON: %v\n%s", err, out.String())
		}
		if r.Decode.Tokens != c.positions || r.UntilBOS != c.ended || r.Generate == nil || r.Generate.Tokens != c.positions {
			t.Errorf("bench %s: decode of %d positions (ended at BOS: %v), Generate %+v; want %d positions (%v)",
				strings.Join(args, " "), r.Decode.Tokens, r.UntilBOS, r.Generate, c.positions, c.ended)
		}
	}
}
