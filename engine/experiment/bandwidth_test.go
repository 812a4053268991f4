package experiment

import (
	"github.com/tokenbytoken/course/engine/models"
	"math"
	"testing"
)

func TestParallelSum(t *testing.T) {
	for _, n := range []int{0, 1, 7, 1000, 1 << 16} {
		words := make([]uint64, n)
		for i := range words {
			words[i] = uint64(i)
		}
		want := uint64(n) * uint64(max(n-1, 0)) / 2 // 0 + 1 + … + (n-1)
		for _, parts := range []int{1, 2, 3, 64} {
			if got := parallelSum(words, parts); got != want {
				t.Errorf("%d words in %d parts: sum %d, want %d", n, parts, got, want)
			}
		}
	}
}

func TestReadBandwidth(t *testing.T) {
	bw, err := ReadBandwidth(1<<20, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !(bw > 0) || math.IsInf(bw, 0) {
		t.Errorf("ReadBandwidth = %g bytes/s, want a positive finite rate", bw)
	}
	for _, c := range []struct{ size, runs int }{{0, 1}, {1<<20 - 8, 1}, {1<<20 + 4, 1}, {MaxReadBytes + 8, 1}, {1 << 20, 0}} {
		if _, err := ReadBandwidth(c.size, c.runs); err == nil {
			t.Errorf("ReadBandwidth(%d, %d): no error", c.size, c.runs)
		}
	}
}

func TestDecodeBytesAndBound(t *testing.T) {
	m, _, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	c := m.Config
	// The course's model is float32 with a shared classifier: 4 bytes a
	// parameter, and its cache 2 × layers × kv_dim float32 a position.
	if got, want := DecodeBytes(m, 0), 4*c.NumParams(); got != want {
		t.Errorf("DecodeBytes at 0 = %d, want 4 × %d parameters = %d", got, c.NumParams(), want)
	}
	if got, want := DecodeBytes(m, 10)-DecodeBytes(m, 0), int64(10*2*c.NLayers*c.KVDim()*4); got != want {
		t.Errorf("10 cached positions add %d bytes, want %d", got, want)
	}
	if got := BandwidthBound(10e9, 100e6); got != 100 {
		t.Errorf("BandwidthBound(10 GB/s, 100 MB) = %g tokens/s, want 100", got)
	}
	if got := BandwidthBound(10e9, 0); got != 0 {
		t.Errorf("BandwidthBound with 0 bytes per token = %g, want 0", got)
	}
}
