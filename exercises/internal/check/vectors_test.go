package check

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestVec(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	long := make([]float64, 2048)
	for i := range long {
		long[i] = float64(i) / 4
	}
	type tokenID int32
	for _, c := range []struct {
		got, want string
	}{
		{Vec([]float64(nil)), "nil"},
		{Vec([]float64{}), "[]"},
		{Vec([]float32{0.5, -2, 1e30}), "[0.5 -2 1e+30]"},
		// float32 values printed as float32: 3.8 is not 3.799999952316284.
		{Vec([]float32{3.8, 1.5, -0.2}), "[3.8 1.5 -0.2]"},
		// Four digits unless the exact value is short, or four digits would
		// look exact when the value is not.
		{Vec([]float64{0.739191908772, 1.0 / 3, 0.49999994, -0.49999994}), "[0.7392 0.3333 0.49999994 -0.49999994]"},
		{Vec([]float32{2.3839054, 0.13283637, 0.5000001, 0.99999994, 4.0 / 7}), "[2.384 0.1328 0.5000001 0.99999994 0.5714]"},
		{Vec([]float64{0.1 + 0.2, 3.4028234663852886e+38}), "[0.3 3.403e+38]"},
		{Vec([]float32{30003.75, 30001.5, -29998.5}), "[30003.75 30001.5 -29998.5]"},
		{Vec([]float64{nan, inf, -inf, 0}), "[NaN +Inf -Inf 0]"},
		{Vec([]int{1, -2, 3}), "[1 -2 3]"},
		{Vec([]uint64{math.MaxUint64}), "[18446744073709551615]"},
		{Vec([]tokenID{563, 2}), "[563 2]"},
		{Vec([]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}), "[0 1 2 3 4 5 6 7 8 9]"},
		{Vec([]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}), "[0 1 2 3 4 5 … 11 values]"},
		{Vec(long), "[0 0.25 0.5 0.75 1 1.25 … 2048 values]"},
	} {
		if c.got != c.want {
			t.Errorf("got %q; want %q", c.got, c.want)
		}
	}
}

func TestList(t *testing.T) {
	quote := func(s string) string { return strconv.Quote(s) }
	if got, want := List([]string{"a", "b c"}, quote), `["a" "b c"]`; got != want {
		t.Errorf("List(2 strings) = %s; want %s", got, want)
	}
	if got, want := List([]string(nil), quote), "nil"; got != want {
		t.Errorf("List(nil) = %s; want %s", got, want)
	}
	many := strings.Split("a b c d e f g h i j k l", " ")
	if got, want := List(many, quote), `["a" "b" "c" "d" "e" "f" … 12 items]`; got != want {
		t.Errorf("List(12 strings) = %s; want %s", got, want)
	}
}

func TestDiff(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		name, got, want string
	}{
		{"equal", Diff([]float64{1, 2}, []float64{1, 2}, 0), ""},
		{"within tol", Diff([]float64{1, 2}, []float64{1.05, 2}, 0.1), ""},
		{"both empty", Diff([]int{}, []int{}, 0), ""},
		{"both nil", Diff([]int(nil), []int(nil), 0), ""},
		{"nil for empty", Diff([]int(nil), []int{}, 0), "got nil, want []"},
		{"empty for nil", Diff([]float32{}, []float64(nil), 0), "got [], want nil"},
		{"NaN and NaN agree", Diff([]float64{nan}, []float64{nan}, 0), ""},
		{"equal infinities agree", Diff([]float64{inf, -inf}, []float64{inf, -inf}, 0), ""},
		{"one value", Diff([]float64{1, 2, 3}, []float64{1, 2.5, 3}, 0), "differs at 1 of 3 positions: [1] 2 want 2.5"},
		{"tolerance named", Diff([]float64{1, 2, 3}, []float64{1, 2.5, 3}, 0.1), "differs by more than 0.1 at 1 of 3 positions: [1] 2 want 2.5"},
		{"NaN against a number", Diff([]float64{nan, 1}, []float64{0, 1}, 1e9), "differs by more than 1e+09 at 1 of 2 positions: [0] NaN want 0"},
		{"infinity against a number", Diff([]float32{float32(inf)}, []float64{1}, 0), "differs at 1 of 1 positions: [0] +Inf want 1"},
		{"ints", Diff([]int{4, 5, 6, 0}, []int{4, 5, 7, 0}, 0), "differs at 1 of 4 positions: [2] 6 want 7"},
		{"shorter", Diff([]int{}, []int{1, 2}, 0), "got 0 values, want 2"},
		{"nil for values", Diff([]float64(nil), []float64{1, 2}, 0), "got 0 values, want 2"},
		{"longer, shared part agrees", Diff([]int{1, 2, 3}, []int{1, 2}, 0), "got 3 values, want 2; the first 2 agree"},
		{"longer, shared part differs", Diff([]int{1, 9, 3}, []int{1, 2}, 0), "got 3 values, want 2; 1 of the first 2 differ: [1] 9 want 2"},
		// Four digits would print 0.7392 twice: Diff adds digits until the two differ.
		{"digits to tell apart", Diff([]float64{0.7391919}, []float64{0.739191908772}, 1e-9), "differs by more than 1e-09 at 1 of 1 positions: [0] 0.7391919 want 0.73919191"},
		{"float32 against float64", Diff([]float32{0.1}, []float64{0.1}, 0), "differs at 1 of 1 positions: [0] 0.100000001 want 0.1"},
		{"the largest difference after the first three", Diff([]float64{1, 1, 1, 1, 9}, []float64{0, 0, 0, 0, 0}, 0),
			"differs at 5 of 5 positions: [0] 1 want 0, [1] 1 want 0, [2] 1 want 0, …; most at [4] 9 want 0"},
		{"the largest among the first three", Diff([]float64{9, 1, 1, 1}, []float64{0, 0, 0, 0}, 0),
			"differs at 4 of 4 positions: [0] 9 want 0, [1] 1 want 0, [2] 1 want 0, …"},
	} {
		if c.got != c.want {
			t.Errorf("%s: Diff gave %q; want %q", c.name, c.got, c.want)
		}
	}
}

func TestMismatch(t *testing.T) {
	for _, c := range []struct {
		name, got, want string
	}{
		{"agree", Mismatch("f()", []float64{1, 2}, []float64{1, 2}, 0), ""},
		{"nil for empty", Mismatch("f()", []int(nil), []int{}, 0), "f() = nil; want []"},
		{"too short", Mismatch("f(x)", []float64(nil), []float64{0.5, 0.25}, 0), "f(x) returned 0 values, nil; want 2: [0.5 0.25]"},
		{"short values", Mismatch("f(x)", []float32{1, 2}, []float64{1, 3}, 1e-6), "f(x) = [1 2]; want [1 3]"},
		{"long values", Mismatch("f(x)", []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, []int{1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11}, 0),
			"f(x) = [0 1 2 3 4 5 … 11 values]; want [1 1 2 3 4 5 … 11 values]\ndiffers at 2 of 11 positions: [0] 0 want 1, [10] 10 want 11"},
		{"long values alike where shown", Mismatch("f(x)", []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11}, 0),
			"f(x) = [0 1 2 3 4 5 … 11 values], as wanted to the digits shown, but it\ndiffers at 1 of 11 positions: [10] 10 want 11"},
		{"equal to four digits", Mismatch("f(x)", []float64{0.73919190000001}, []float64{0.739191908772}, 1e-9),
			"f(x) = [0.7392], as wanted to the digits shown, but it\ndiffers by more than 1e-09 at 1 of 1 positions: [0] 0.7391919 want 0.73919191"},
	} {
		if c.got != c.want {
			t.Errorf("%s: Mismatch gave %q; want %q", c.name, c.got, c.want)
		}
	}
}

// TestDiffLong: on vocabulary-sized vectors, and on values that need every
// digit to be told apart, Diff stays one line of at most lineUpTo bytes.
func TestDiffLong(t *testing.T) {
	got, want := make([]float64, 50000), make([]float64, 50000)
	for i := range want {
		want[i] = 1 / float64(i+3)
		got[i] = math.Nextafter(want[i], 1) // differs in the 16th digit
	}
	got[49999] = 7
	d := Diff(got, want, 0)
	if !strings.HasPrefix(d, "differs at 50000 of 50000 positions: [0] ") || strings.Contains(d, "\n") || len(d) > lineUpTo {
		t.Errorf("Diff of two 50000-value vectors = %q (%d bytes); want one line of at most %d bytes starting with the count", d, len(d), lineUpTo)
	}
	if !strings.Contains(d, ", …") {
		t.Errorf("Diff of two 50000-value vectors = %q; want … after the positions it lists", d)
	}
	small := Diff(got[:2], want[:2], 0)
	if wantS := "differs at 2 of 2 positions: [0] 0.3333333333333334 want 0.3333333333333333, [1] 0.2500000000000001 want 0.25"; small != wantS {
		t.Errorf("Diff(next floats up) = %q; want %q", small, wantS)
	}
	if v := Vec(got); len(v) > 100 {
		t.Errorf("Vec(50000 values) = %q, %d bytes; want a short line", v, len(v))
	}
}

func ExampleVec() {
	probs := make([]float64, 2048)
	for i := range probs {
		probs[i] = 1.0 / 2048
	}
	fmt.Println(Vec([]float32{3.8, 1.5, -0.2}))
	fmt.Println(Vec(probs))
	// Output:
	// [3.8 1.5 -0.2]
	// [0.0004883 0.0004883 0.0004883 0.0004883 0.0004883 0.0004883 … 2048 values]
}

func ExampleDiff() {
	got := []float64{0.09, 0.24, 0.67, 0}
	want := []float64{0.09, 0.24, 0.66, 0.01}
	fmt.Println(Diff(got, want, 1e-3))
	fmt.Println(Diff(got[:3], want, 1e-3))
	// Output:
	// differs by more than 0.001 at 2 of 4 positions: [2] 0.67 want 0.66, [3] 0 want 0.01
	// got 3 values, want 4; 1 of the first 3 differ: [2] 0.67 want 0.66
}

func ExampleMismatch() {
	want := []float64{0.7310585786300049, 0.2689414213699951}
	fmt.Println(Mismatch("Softmax([1000 999])", []float64{0.5, 0.5}, want, 1e-12))
	fmt.Println(Mismatch("Softmax([1 0])", []float64{0.7310585786, 0.2689414214}, want, 1e-12))
	fmt.Println(Mismatch("Softmax([1 0])", []float64{0.7310585786300049}, want, 1e-12))
	// Output:
	// Softmax([1000 999]) = [0.5 0.5]; want [0.7311 0.2689]
	// Softmax([1 0]) = [0.7311 0.2689], as wanted to the digits shown, but it
	// differs by more than 1e-12 at 2 of 2 positions: [0] 0.7310585786 want 0.73105857863, [1] 0.2689414214 want 0.26894142137
	// Softmax([1 0]) returned 1 value, [0.7311]; want 2: [0.7311 0.2689]
}
