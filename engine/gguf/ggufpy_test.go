package gguf_test

import (
	"github.com/tokenbytoken/course/engine/internal/testmodel"

	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	. "github.com/tokenbytoken/course/engine/gguf"
	"github.com/tokenbytoken/course/engine/internal/ggufwrite"
)

// smolLM2 is the model the project's install step downloads, from the
// repository's root.
const smolLM2 = "../../kernel/.models/smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"

var writeForPy = flag.String("ggufpy.write", "", "write the file TestGGUFPyReadsWrittenFile checks to this path, for testdata/ggufpy_dump.py")

// readDump reads the lines ggufpy_dump.py printed.
func readDump(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func fileLine(b []byte) string {
	h := sha256.Sum256(b)
	return fmt.Sprintf("file %d %s", len(b), hex.EncodeToString(h[:]))
}

func openSmolLM2(t testing.TB) *File {
	testmodel.Path(t, testmodel.SmolLM2)
	f, err := Open(smolLM2)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// SmolLM2 reads as the Python gguf package reads it, to every key, value,
// tensor info and tensor's bytes.
func TestSmolLM2MatchesGGUFPy(t *testing.T) {
	f := openSmolLM2(t)
	defer f.Close()
	want := readDump(t, "smollm2.ggufpy.txt")
	if want[0] != "file 98362432 b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53" {
		t.Fatalf("smollm2.ggufpy.txt is about another file: %s", want[0])
	}
	if testing.Short() {
		t.Skip("hashing the model's 98 MB is skipped in -short mode")
	}
	// Open's caller sees the bytes through the mapping: the file's hash
	// taken through it must be the one gguf-py printed.
	if got := fileLine(FileData(f)); got != want[0] {
		t.Fatalf("the model is not the recorded one: %s", got)
	}
	compareLines(t, dump(f), want[1:])
}

// SmolLM2's header says what the model card and llama.cpp say it does.
func TestSmolLM2Facts(t *testing.T) {
	f := openSmolLM2(t)
	defer f.Close()
	ints := map[string]uint64{
		"llama.block_count":               30,
		"llama.embedding_length":          576,
		"llama.feed_forward_length":       1536,
		"llama.attention.head_count":      9,
		"llama.attention.head_count_kv":   3,
		"llama.context_length":            8192,
		"llama.rope.dimension_count":      64,
		"tokenizer.ggml.bos_token_id":     1,
		"tokenizer.ggml.eos_token_id":     2,
		"tokenizer.ggml.unknown_token_id": 0,
		"general.quantization_version":    2,
		"llama.vocab_size":                49152,
		"tokenizer.ggml.padding_token_id": 2,
		"general.file_type":               3, // mostly Q4_1
	}
	for key, want := range ints {
		if got, err := f.Uint(key); got != want || err != nil {
			t.Errorf("%s = %d, %v; want %d", key, got, err, want)
		}
	}
	for key, want := range map[string]float64{
		"llama.rope.freq_base":                   100000,
		"llama.attention.layer_norm_rms_epsilon": 1e-5,
	} {
		if got, err := f.Float(key); err != nil || math.Abs(got-want) > want*1e-6 {
			t.Errorf("%s = %g, %v; want %g", key, got, err, want)
		}
	}
	for key, want := range map[string]string{
		"general.architecture": "llama",
		"tokenizer.ggml.model": "gpt2",
		"tokenizer.ggml.pre":   "smollm",
	} {
		if got, err := f.String(key); got != want || err != nil {
			t.Errorf("%s = %q, %v; want %q", key, got, err, want)
		}
	}
	if b, err := f.Bool("tokenizer.ggml.add_bos_token"); b || err != nil {
		t.Errorf("tokenizer.ggml.add_bos_token = %v, %v; want false", b, err)
	}
	if tmpl, err := f.String("tokenizer.chat_template"); err != nil || !strings.Contains(tmpl, "<|im_start|>") {
		t.Errorf("tokenizer.chat_template is not ChatML: %q, %v", tmpl, err)
	}

	tokens, err := f.Strings("tokenizer.ggml.tokens")
	if err != nil || len(tokens) != 49152 {
		t.Fatalf("%d tokens, %v; want 49152", len(tokens), err)
	}
	for id, want := range map[int]string{0: "<|endoftext|>", 1: "<|im_start|>", 2: "<|im_end|>"} {
		if tokens[id] != want {
			t.Errorf("token %d is %q, want %q", id, tokens[id], want)
		}
	}
	merges, err := f.Strings("tokenizer.ggml.merges")
	if err != nil || len(merges) != 48900 {
		t.Errorf("%d merges, %v; want 48900", len(merges), err)
	}
	types, err := f.Ints("tokenizer.ggml.token_type")
	if err != nil || len(types) != 49152 {
		t.Errorf("%d token types, %v; want 49152", len(types), err)
	}

	count := map[Type]int{}
	for _, t := range f.Tensors {
		count[t.Type]++
	}
	if len(f.Tensors) != 272 || count[Q4_1] != 210 || count[F32] != 61 || count[Q8_0] != 1 {
		t.Errorf("%d tensors: %v; want 210 Q4_1, 61 F32 and 1 Q8_0", len(f.Tensors), count)
	}
	emb, ok := f.Tensor("token_embd.weight")
	if !ok || emb.Type != Q8_0 || emb.Elements() != 576*49152 || len(emb.Data) != 576*49152/32*34 {
		t.Errorf("token_embd.weight: %v %v", ok, emb)
	}
	if _, ok := f.Tensor("output.weight"); ok {
		t.Error("output.weight exists; the model ties it to token_embd.weight")
	}
}

// Opening SmolLM2 maps it and reads only its header, which takes little
// time next to reading the model's 98 MB; the test logs how long.
func TestSmolLM2OpenTime(t *testing.T) {
	f := openSmolLM2(t)
	f.Close()
	best := time.Duration(math.MaxInt64)
	for range 5 {
		start := time.Now()
		f, err := Open(smolLM2)
		if err != nil {
			t.Fatal(err)
		}
		best = min(best, time.Since(start))
		f.Close()
	}
	t.Logf("Open(SmolLM2): %v (best of 5)", best)
	if best > time.Second {
		t.Errorf("Open took %v", best)
	}
}

func BenchmarkOpenSmolLM2(b *testing.B) {
	openSmolLM2(b).Close()
	for b.Loop() {
		f, err := Open(smolLM2)
		if err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}

func BenchmarkStringsVocab(b *testing.B) {
	f := openSmolLM2(b)
	defer f.Close()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.Strings("tokenizer.ggml.tokens"); err != nil {
			b.Fatal(err)
		}
	}
}

// writtenFile is a file with every value type, nested arrays, a
// non-default alignment and tensors of several types, for gguf-py to read.
func writtenFile() (meta []ggufwrite.KeyValue, tensors []ggufwrite.TensorData) {
	meta = append(everyValue(), ggufwrite.KeyValue{Key: "general.alignment", Value: ggufwrite.Uint32Value(64)})
	return meta, everyTensor()
}

// The Python gguf package reads what Write writes as it was meant: every
// key, value, tensor info and tensor's bytes. And package gguf reads that
// file as gguf-py does, offsets included.
func TestGGUFPyReadsWrittenFile(t *testing.T) {
	meta, tensors := writtenFile()
	b := encode(t, 3, meta, tensors)
	if *writeForPy != "" {
		if err := os.WriteFile(*writeForPy, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := readDump(t, "written.ggufpy.txt")
	if got := fileLine(b); got != want[0] {
		t.Fatalf("Write now writes another file (%s), not the one written.ggufpy.txt describes (%s): "+
			"write it with -ggufpy.write=FILE and run testdata/ggufpy_dump.py FILE > testdata/written.ggufpy.txt",
			got, want[0])
	}

	// What was meant, without the offsets, which are the writer's choice:
	// the values as this package reads them from a file of their own (the
	// getters' tests check those against the Go values), the tensors as
	// they were given.
	meant := []string{"version 3", "alignment 64"}
	for _, kv := range readBack(t, meta) {
		meant = append(meant, kvLine(kv))
	}
	for _, t := range tensors {
		meant = append(meant, tensorLine(t.Name, t.Type, t.Dims, -1, t.Data))
	}
	var read []string
	for _, line := range want[1:] {
		if strings.HasPrefix(line, "data_offset ") {
			continue
		}
		if fields := strings.Fields(line); fields[0] == "tensor" {
			fields[5] = "-1"
			line = strings.Join(fields, " ")
		}
		read = append(read, line)
	}
	compareLines(t, read, meant)

	f, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	compareLines(t, dump(f), want[1:])
	if !bytes.Equal(b[f.DataOffset():][:len(tensors[0].Data)], tensors[0].Data) {
		t.Error("the first tensor's data is not at the start of the data section")
	}
}

func BenchmarkParseSmolLM2(b *testing.B) {
	openSmolLM2(b).Close()
	data, err := os.ReadFile(smolLM2)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}
