package check

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// Number is what Vec and Diff print: Go's integer and floating-point types,
// and types defined on them.
type Number interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr |
		~float32 | ~float64
}

// A failure message must stay readable when the vector is a whole
// vocabulary's logits, so long vectors are cut: these are the sizes.
const (
	wholeUpTo = 10  // List and Vec print up to this many items in full
	headItems = 6   // and only this many of a longer list, then its length
	listUpTo  = 150 // Diff lists no more positions past this many bytes
	lineUpTo  = 190 // and keeps its whole line within this many
)

// Vec formats a vector of numbers for a failure message: "nil" for a nil
// slice, "[]" for an empty one, every value when there are at most ten,
// and only the first six and the count for a longer one:
//
//	[0.0002969 0.005238 1.101e-05 5.181e-05 0.001477 0.0003993 … 2048 values]
//
// A value is written with four significant digits, or exactly when that
// takes at most eight characters (30003.75, not 3e+04) or when four digits
// would make it look rounder than it is (0.49999994, not 0.5). NaN and
// infinities read NaN, +Inf and -Inf.
func Vec[T Number](v []T) string {
	return list(v, num[T], "values")
}

// List formats any slice for a failure message the way Vec formats
// numbers, writing each item with item: all of them up to ten, else the
// first six and the count ("… 40 items"). It is for token ids shown with
// their pieces, strings and other lists that are not plain numbers.
func List[T any](v []T, item func(T) string) string {
	return list(v, item, "items")
}

// list is List and Vec, which count what they leave out as noun.
func list[T any](v []T, item func(T) string, noun string) string {
	if v == nil {
		return "nil"
	}
	shown := v
	if len(v) > wholeUpTo {
		shown = v[:headItems]
	}
	var b strings.Builder
	b.WriteByte('[')
	for i, x := range shown {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(item(x))
	}
	if len(shown) < len(v) {
		fmt.Fprintf(&b, " … %d %s", len(v), noun)
	}
	b.WriteByte(']')
	return b.String()
}

// Diff describes in one line where got differs from want, for a failure
// message; it returns "" when they agree. Two values agree when they are
// within tol of each other, when they are equal (infinities included) or
// when both are NaN; a NaN never agrees with a number.
//
// It names the first three positions that differ and the one that differs
// most, each with got's and want's values, written with as many digits as
// it takes to tell the two apart:
//
//	differs by more than 1e-09 at 3 of 2048 positions: [5] 0.1 want 0.2, [17] 0.3 want 0.5, [40] 1 want 2
//
// Vectors of different lengths are reported with both lengths and the
// positions they share, and a nil slice differs from an empty one. Values
// are compared as float64, so integers beyond 2⁵³ compare approximately.
func Diff[G, W Number](got []G, want []W, tol float64) string {
	if len(got) == 0 && len(want) == 0 {
		if (got == nil) != (want == nil) {
			return fmt.Sprintf("got %s, want %s", Vec(got), Vec(want))
		}
		return ""
	}
	shared := min(len(got), len(want))
	var at []int // the positions that differ, in order
	worst, worstAt := 0.0, -1
	for i := range shared {
		d := gap(float64(got[i]), float64(want[i]))
		if !(d > tol) {
			continue
		}
		at = append(at, i)
		if worstAt < 0 || d > worst {
			worst, worstAt = d, i
		}
	}
	var b strings.Builder
	if len(got) != len(want) {
		fmt.Fprintf(&b, "got %s, want %d", values(len(got)), len(want))
		if shared == 0 {
			return b.String()
		}
		if len(at) == 0 {
			fmt.Fprintf(&b, "; the first %d agree", shared)
			return b.String()
		}
		fmt.Fprintf(&b, "; %d of the first %d differ", len(at), shared)
	} else {
		if len(at) == 0 {
			return ""
		}
		b.WriteString("differs")
		if tol > 0 {
			fmt.Fprintf(&b, " by more than %g", tol)
		}
		fmt.Fprintf(&b, " at %d of %d positions", len(at), len(want))
	}
	b.WriteString(": ")
	listed := 0
	for _, i := range at {
		entry := position(got, want, i)
		if listed == 3 || listed > 0 && b.Len()+len(entry) > listUpTo {
			break
		}
		if listed > 0 {
			b.WriteString(", ")
		}
		b.WriteString(entry)
		listed++
		if i == worstAt {
			worstAt = -1 // already shown
		}
	}
	if listed < len(at) {
		b.WriteString(", …")
		if worstAt >= 0 {
			if most := "; most at " + position(got, want, worstAt); b.Len()+len(most) <= lineUpTo {
				b.WriteString(most)
			}
		}
	}
	return b.String()
}

// Mismatch is a whole failure message for a vector result: "" when got
// agrees with want within tol (as Diff decides), else what call returned
// and what was wanted and, on a second line, Diff's account of where they
// differ. Short vectors, printed in full, need no second line:
//
//	Softmax([1000 999]) = [0.5 0.5]; want [0.7311 0.2689]
//
// When the two print the same, the wanted values are not repeated:
//
//	Softmax([1 0]) = [0.7311 0.2689], as wanted to the digits shown, but it
//	differs by more than 1e-12 at 2 of 2 positions: [0] 0.7310585786 want 0.73105857863, …
//
// Results of the wrong length take one line that gives both lengths.
func Mismatch[G, W Number](call string, got []G, want []W, tol float64) string {
	d := Diff(got, want, tol)
	switch {
	case d == "":
		return ""
	case len(got) == 0 && len(want) == 0:
		return fmt.Sprintf("%s = %s; want %s", call, Vec(got), Vec(want))
	case len(got) != len(want):
		return fmt.Sprintf("%s returned %s, %s; want %d: %s", call, values(len(got)), Vec(got), len(want), Vec(want))
	}
	g, w := Vec(got), Vec(want)
	switch {
	case g == w:
		return fmt.Sprintf("%s = %s, as wanted to the digits shown, but it\n%s", call, g, d)
	case len(want) <= wholeUpTo:
		return fmt.Sprintf("%s = %s; want %s", call, g, w) // both in full: the difference shows
	}
	return fmt.Sprintf("%s = %s; want %s\n%s", call, g, w, d)
}

// values counts values: "1 value", "0 values".
func values(n int) string {
	if n == 1 {
		return "1 value"
	}
	return fmt.Sprintf("%d values", n)
}

// gap is how far apart two values are for Diff: 0 for equal values (equal
// infinities included) and for two NaNs, +Inf when only one is NaN.
func gap(g, w float64) float64 {
	switch {
	case g == w || math.IsNaN(g) && math.IsNaN(w):
		return 0
	case math.IsNaN(g) || math.IsNaN(w):
		return math.Inf(1)
	}
	return math.Abs(g - w)
}

// position writes position i of got and want as "[i] g want w", with the
// fewest significant digits (four at least) that tell g and w apart, or
// their exact forms when those are short and still differ.
func position[G, W Number](got []G, want []W, i int) string {
	g, w := digits(got[i], 4), digits(want[i], 4)
	for p := 5; g == w && p <= 17; p++ {
		g, w = digits(got[i], p), digits(want[i], p)
	}
	if eg, ew := orExact(got[i], g), orExact(want[i], w); eg != ew {
		g, w = eg, ew
	}
	return fmt.Sprintf("[%d] %s want %s", i, g, w)
}

// num writes one value for Vec: integers in full, floats with four
// significant digits unless orExact prefers their exact form.
func num[T Number](x T) string {
	return orExact(x, digits(x, 4))
}

// orExact is x's exact shortest form when that is short (eight
// characters, sign aside) or when rounded would make x look like a rounder
// number than it is and the exact form still fits in ten (0.49999994 is not
// 0.5); else rounded. Integers are always exact.
func orExact[T Number](x T, rounded string) string {
	bits := floatBits[T]()
	if bits == 0 {
		return integer(x)
	}
	f := float64(x)
	exact := strconv.FormatFloat(f, 'g', -1, bits)
	switch n := len(strings.TrimPrefix(exact, "-")); {
	case n <= 8:
		return exact
	case n <= 10:
		if r, err := strconv.ParseFloat(rounded, 64); err == nil && r != f && math.Abs(r-f) <= 1e-6*math.Abs(f) {
			return exact
		}
	}
	return rounded
}

// digits writes x with p significant digits (integers in full).
func digits[T Number](x T, p int) string {
	bits := floatBits[T]()
	if bits == 0 {
		return integer(x)
	}
	return strconv.FormatFloat(float64(x), 'g', p, bits)
}

// integer writes an integer of any of Number's integer types.
func integer[T Number](x T) string {
	switch reflect.TypeFor[T]().Kind() {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(uint64(x), 10)
	}
	return strconv.FormatInt(int64(x), 10)
}

// floatBits is 32 or 64 for T's floating-point kinds, 0 for integers.
func floatBits[T Number]() int {
	switch reflect.TypeFor[T]().Kind() {
	case reflect.Float32:
		return 32
	case reflect.Float64:
		return 64
	}
	return 0
}
