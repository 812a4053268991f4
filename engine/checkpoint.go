package engine

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"unsafe"

	"github.com/tokenbytoken/course/engine/internal/atomicfile"
)

// A llama2.c checkpoint in the legacy (version 0) layout is a header of seven
// little-endian int32 values — dim, hidden_dim, n_layers, n_heads,
// n_kv_heads, vocab_size, seq_len — followed by every weight as a
// little-endian float32, grouped by tensor type (see Weights). A negative
// vocab_size means the classifier is stored separately at the end.
const headerSize = 7 * 4

// newFormatMagic opens llama2.c's later checkpoint versions ("ak42" as a
// little-endian uint32), which this engine does not read.
const newFormatMagic = 0x616b3432

// ParseModel reads a llama2.c checkpoint held in memory.
func ParseModel(data []byte) (*Model, error) {
	return ReadModel(bytes.NewReader(data), int64(len(data)))
}

// ReadModel reads a llama2.c checkpoint of the given total size in bytes.
// The size is checked against the header, and the weights' size against
// the memory available, before any weight is allocated, so a corrupt header
// cannot cause a huge allocation. Every weight is checked as it is read: a
// NaN or an infinity is refused, naming the tensor and where in it.
func ReadModel(r io.Reader, size int64) (*Model, error) {
	c, err := readHeader(r, size)
	if err != nil {
		return nil, err
	}
	w := &Weights{}
	buf := make([]byte, 1<<16)
	for _, t := range weightLayout(c) {
		var dst []float32
		if t.dst != nil {
			dst = weightSlice(t.n)
			*t.dst(w) = dst
		}
		if err := readFloats(r, dst, t.n, buf); err != nil {
			return nil, fmt.Errorf("reading %s: %w", t.name, err)
		}
		if at := firstNonFinite(dst); at >= 0 {
			return nil, fmt.Errorf("weight %s[%d] is %v: a model's weights must be finite numbers (the file is corrupt, or training diverged)", t.name, at, dst[at])
		}
	}
	if c.SharedClassifier {
		w.Classifier = w.TokenEmbedding
	}
	return NewModel(c, w)
}

// readHeader reads a checkpoint's header and checks it: its layout
// version, the shape, that the file's size is exactly what the shape needs,
// and that the weights fit in the memory available.
func readHeader(r io.Reader, size int64) (Config, error) {
	if size < headerSize {
		return Config{}, fmt.Errorf("file is %d bytes, shorter than the %d-byte header", size, headerSize)
	}
	var h [7]int32
	if err := binary.Read(r, binary.LittleEndian, &h); err != nil {
		return Config{}, fmt.Errorf("reading header: %w", err)
	}
	if uint32(h[0]) == newFormatMagic {
		return Config{}, fmt.Errorf("this is a llama2.c version %d checkpoint (magic \"ak42\"); the engine reads the legacy version-0 layout: export it with llama2.c's export.py --version 0", h[1])
	}
	c := Config{
		Dim: int(h[0]), HiddenDim: int(h[1]), NLayers: int(h[2]), NHeads: int(h[3]),
		NKVHeads: int(h[4]), VocabSize: int(h[5]), SeqLen: int(h[6]),
		SharedClassifier: h[5] > 0,
	}
	if c.VocabSize < 0 {
		c.VocabSize = -c.VocabSize
	}
	if err := c.Validate(); err != nil {
		return Config{}, fmt.Errorf("bad header: %w", err)
	}
	want := headerSize + 4*weightLayout(c).total()
	if size != want {
		return Config{}, fmt.Errorf("file is %d bytes but header %v needs exactly %d (truncated or not a llama2.c version-0 checkpoint)", size, c, want)
	}
	what := fmt.Sprintf("a model of %d parameters (%v)", c.NumParams(), c)
	if err := checkMemory(what, 4*c.NumParams()); err != nil {
		return Config{}, err
	}
	return c, nil
}

// modelFromBytes makes a model whose weights are the checkpoint data
// itself, without copying: data must stay valid (it is a mapped file) and
// its float32 values must be in the machine's byte order, which
// mapFile checks. The header, the size, the memory and the weights are
// checked as ReadModel checks them.
func modelFromBytes(data []byte) (*Model, error) {
	c, err := readHeader(bytes.NewReader(data[:headerSize]), int64(len(data)))
	if err != nil {
		return nil, err
	}
	w := &Weights{}
	off := int64(headerSize)
	for _, t := range weightLayout(c) {
		if t.dst != nil && t.n > 0 {
			dst := unsafe.Slice((*float32)(unsafe.Pointer(&data[off])), t.n)
			*t.dst(w) = dst
			if at := firstNonFinite(dst); at >= 0 {
				return nil, fmt.Errorf("weight %s[%d] is %v: a model's weights must be finite numbers (the file is corrupt, or training diverged)", t.name, at, dst[at])
			}
		}
		off += 4 * t.n
	}
	if c.SharedClassifier {
		w.Classifier = w.TokenEmbedding
	}
	return NewModel(c, w)
}

// readFloats reads n little-endian float32 values into dst (or discards them
// when dst is nil).
func readFloats(r io.Reader, dst []float32, n int64, buf []byte) error {
	for i := int64(0); i < n; {
		chunk := min(int64(len(buf)/4), n-i)
		b := buf[:4*chunk]
		if _, err := io.ReadFull(r, b); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
		if dst != nil {
			for j := range chunk {
				dst[i+j] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*j:]))
			}
		}
		i += chunk
	}
	return nil
}

// WriteTo writes the model as a llama2.c legacy (version 0) checkpoint,
// its matrices as float32 numbers (a GGUF model's dequantized). The
// legacy RoPE tables are written as zeros: no llama2.c reader uses them.
func (m *Model) WriteTo(w io.Writer) (int64, error) {
	if err := m.Validate(); err != nil {
		return 0, fmt.Errorf("cannot write model: %w", err)
	}
	c := m.Config
	vocab := int32(c.VocabSize)
	if !c.SharedClassifier {
		vocab = -vocab
	}
	bw := bufio.NewWriterSize(w, 4<<20) // whole 2 MB pages: see atomicfile's writeSize
	h := [7]int32{int32(c.Dim), int32(c.HiddenDim), int32(c.NLayers), int32(c.NHeads), int32(c.NKVHeads), vocab, int32(c.SeqLen)}
	if err := binary.Write(bw, binary.LittleEndian, h); err != nil {
		return 0, err
	}
	written := int64(headerSize)
	var b [4]byte
	err := m.eachTensor(func(_ string, values []float32) error {
		for _, v := range values {
			binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
			if _, err := bw.Write(b[:]); err != nil {
				return err
			}
			written += 4
		}
		return nil
	})
	if err != nil {
		return written, err
	}
	return written, bw.Flush()
}

// Save writes the model to path atomically: it writes a temporary file in
// the same directory and renames it into place, so an interrupted save never
// leaves a half-written checkpoint behind.
func (m *Model) Save(path string) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := m.WriteTo(w)
		return err
	})
}
