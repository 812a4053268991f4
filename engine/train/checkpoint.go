package train

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/tokenbytoken/course/engine/internal/atomicfile"
	"github.com/tokenbytoken/course/engine/internal/memory"
	"github.com/tokenbytoken/course/engine/internal/regular"
)

// State is a training run in progress: the weights, the optimizer's
// moments and the counters. A State saved with Save and read back with
// LoadState continues exactly where it stopped.
type State struct {
	Config  Config
	Params  *Params
	Opt     *AdamW
	Step    int           // steps completed
	Tokens  int64         // training tokens seen
	Elapsed time.Duration // training time so far, over all sessions
	ValLoss float64       // the latest validation loss (NaN before the first)
	// History holds one point per step, for loss charts.
	History []Point
}

// Point is the loss at one step.
type Point struct {
	Step    int
	Loss    float64
	ValLoss float64 // NaN when not evaluated at this step
}

// checkpointMagic starts every training checkpoint file.
const checkpointMagic = "TBTCKPT1"

// checkpointHeader is the JSON part of a checkpoint.
type checkpointHeader struct {
	Config    Config
	Step      int
	Tokens    int64
	ElapsedNS int64
	ValLoss   *float64 // nil for NaN (JSON has no NaN)
	NumParams int
	History   []jsonPoint
}

type jsonPoint struct {
	Step    int
	Loss    float64
	ValLoss *float64 `json:",omitempty"`
}

func nanToNil(v float64) *float64 {
	if math.IsNaN(v) {
		return nil
	}
	return &v
}

func nilToNaN(v *float64) float64 {
	if v == nil {
		return math.NaN()
	}
	return *v
}

// Save writes the state to path atomically: the magic bytes, a length-
// prefixed JSON header, then the parameters and AdamW's two moment vectors
// as little-endian float32.
func (s *State) Save(path string) error {
	h := checkpointHeader{Config: s.Config, Step: s.Step, Tokens: s.Tokens, ElapsedNS: int64(s.Elapsed),
		ValLoss: nanToNil(s.ValLoss), NumParams: len(s.Params.Data)}
	for _, p := range s.History {
		h.History = append(h.History, jsonPoint{p.Step, p.Loss, nanToNil(p.ValLoss)})
	}
	js, err := json.Marshal(h)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		if err := writeHeader(w, checkpointMagic, js); err != nil {
			return err
		}
		for _, v := range [][]float32{s.Params.Data, s.Opt.M, s.Opt.V} {
			if err := writeFloats(w, v); err != nil {
				return err
			}
		}
		return nil
	})
}

// LoadState reads a checkpoint written by Save. A path that is not a
// regular file is refused before anything is read.
func LoadState(path string) (*State, error) {
	f, size, err := regular.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := readState(bufio.NewReaderSize(f, 1<<20), size)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return s, nil
}

// readState reads a checkpoint of size bytes. Everything the header claims
// is checked against the size, and the memory the state needs against the
// memory available, before the parameters are allocated: a damaged or
// hostile header is reported, never obeyed.
func readState(r io.Reader, size int64) (*State, error) {
	js, err := readHeader(r, size, checkpointMagic, "a training checkpoint")
	if err != nil {
		return nil, err
	}
	var h checkpointHeader
	if err := json.Unmarshal(js, &h); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	cfg := h.Config
	if err := CheckConfig(cfg.Model); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	params := int64(numParams(cfg.Model))
	if int64(h.NumParams) != params {
		return nil, fmt.Errorf("header says %d parameters, shape %v has %d", h.NumParams, cfg.Model, params)
	}
	if want := int64(len(checkpointMagic)) + 4 + int64(len(js)) + 3*4*params; size != want {
		return nil, fmt.Errorf("file is %d bytes but its header (%d parameters, with AdamW's two moments) needs exactly %d: truncated or damaged", size, params, want)
	}
	if h.Step < 0 || h.Tokens < 0 || h.ElapsedNS < 0 {
		return nil, fmt.Errorf("header: step %d, tokens %d, elapsed %d ns: none may be negative", h.Step, h.Tokens, h.ElapsedNS)
	}
	what := fmt.Sprintf("a training state of %d parameters with AdamW's two moments", params)
	if err := memory.Check(what, 3*4*params); err != nil {
		return nil, err
	}
	p, err := NewParams(cfg.Model)
	if err != nil {
		return nil, err
	}
	opt := NewAdamW(cfg.Model, cfg.Beta1, cfg.Beta2, adamEps, cfg.WeightDecay)
	for _, v := range [][]float32{p.Data, opt.M, opt.V} {
		if err := readFloats(r, v); err != nil {
			return nil, fmt.Errorf("truncated: %w", err)
		}
	}
	var extra [1]byte
	if k, _ := r.Read(extra[:]); k > 0 {
		return nil, errors.New("trailing bytes after the optimizer state")
	}
	opt.Step = h.Step
	s := &State{Config: cfg, Params: p, Opt: opt, Step: h.Step, Tokens: h.Tokens,
		Elapsed: time.Duration(h.ElapsedNS), ValLoss: nilToNaN(h.ValLoss)}
	for _, jp := range h.History {
		s.History = append(s.History, Point{jp.Step, jp.Loss, nilToNaN(jp.ValLoss)})
	}
	return s, nil
}

// adamEps is AdamW's ε.
const adamEps = 1e-8

func writeFloats(w io.Writer, v []float32) error {
	buf := make([]byte, 4*4096)
	for i := 0; i < len(v); i += 4096 {
		chunk := v[i:min(i+4096, len(v))]
		for j, x := range chunk {
			binary.LittleEndian.PutUint32(buf[4*j:], math.Float32bits(x))
		}
		if _, err := w.Write(buf[:4*len(chunk)]); err != nil {
			return err
		}
	}
	return nil
}

func readFloats(r io.Reader, v []float32) error {
	buf := make([]byte, 4*4096)
	for i := 0; i < len(v); i += 4096 {
		chunk := v[i:min(i+4096, len(v))]
		b := buf[:4*len(chunk)]
		if _, err := io.ReadFull(r, b); err != nil {
			return err
		}
		for j := range chunk {
			chunk[j] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*j:]))
		}
	}
	return nil
}

// readHeader reads the start of a checkpoint or token-cache file of size
// bytes — its magic string and the length of its JSON header — and returns
// the JSON, refusing a length that the file cannot hold before allocating
// it. what names the kind of file, for the error.
func readHeader(r io.Reader, size int64, magic, what string) ([]byte, error) {
	got := make([]byte, len(magic))
	if _, err := io.ReadFull(r, got); err != nil || string(got) != magic {
		return nil, fmt.Errorf("not %s (bad magic)", what)
	}
	var n uint32
	if err := binary.Read(r, binary.LittleEndian, &n); err != nil {
		return nil, fmt.Errorf("reading header: %w", err)
	}
	if rest := size - int64(len(magic)) - 4; int64(n) > rest {
		return nil, fmt.Errorf("header length %d is more than the %d bytes left in the file", n, max(rest, 0))
	}
	js := make([]byte, n)
	if _, err := io.ReadFull(r, js); err != nil {
		return nil, fmt.Errorf("reading header: %w", err)
	}
	return js, nil
}

// writeHeader starts a checkpoint or token-cache file: its magic string, the
// length of its JSON header as a little-endian uint32, then the header.
func writeHeader(w io.Writer, magic string, js []byte) error {
	if _, err := io.WriteString(w, magic); err != nil {
		return err
	}
	if err := binary.Write(w, binary.LittleEndian, uint32(len(js))); err != nil {
		return err
	}
	_, err := w.Write(js)
	return err
}
