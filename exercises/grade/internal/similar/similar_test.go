package similar

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestCompareWithItself: every reference solution shares all its hashes
// with itself.
func TestCompareWithItself(t *testing.T) {
	for _, name := range exerciseNames(t) {
		ex := loadExercise(t, name)
		m := Compare(ex.ref, ex.ref)
		if m.Score != 1 || m.Shared != ex.ref.Size() || ex.ref.Size() == 0 {
			t.Errorf("%s: Compare(ref, ref) = score %v, %d shared; want 1 and all %d", name, m.Score, m.Shared, ex.ref.Size())
		}
	}
}

// TestCompareIsSymmetric: swapping the arguments swaps the spans and
// changes nothing else.
func TestCompareIsSymmetric(t *testing.T) {
	for _, name := range []string{"02-softmax", "07-kv-cache", "13-thinking-out-loud"} {
		ex := loadExercise(t, name)
		others := []*Fingerprint{ex.ref, Of(disguise(t, name, ex.sol), ex.base)}
		for _, files := range variants(t, "independent", name) {
			others = append(others, ex.learner(files))
		}
		for i, a := range others {
			for _, b := range others[i+1:] {
				ab, ba := Compare(a, b), Compare(b, a)
				if ab.Score != ba.Score || ab.Shared != ba.Shared || !reflect.DeepEqual(ab.A, ba.B) || !reflect.DeepEqual(ab.B, ba.A) {
					t.Errorf("%s: Compare(a, b) = %+v but Compare(b, a) = %+v", name, ab, ba)
				}
			}
		}
	}
}

func TestCompareEmpty(t *testing.T) {
	ex := loadExercise(t, "02-softmax")
	empty := Of(nil, nil)
	stub := Of(ex.stubs, ex.base)
	for _, c := range []struct {
		what string
		a, b *Fingerprint
	}{
		{"nil and nil", nil, nil},
		{"nil and the reference", nil, ex.ref},
		{"no files and the reference", empty, ex.ref},
		{"the reference and the stubs", ex.ref, stub},
	} {
		if m := Compare(c.a, c.b); !reflect.DeepEqual(m, Match{}) {
			t.Errorf("Compare of %s = %+v; want the zero Match", c.what, m)
		}
	}
	if n := empty.Size(); n != 0 {
		t.Errorf("Of(nil, nil).Size() = %d; want 0", n)
	}
}

// TestOfIgnoresMapOrder: the same files give the same fingerprint, whatever
// order the map gives them in.
func TestOfIgnoresMapOrder(t *testing.T) {
	ex := loadExercise(t, "09-beam-search")
	for range 10 {
		if fp := Of(ex.sol, ex.base); !reflect.DeepEqual(fp, ex.ref) {
			t.Fatal("two fingerprints of the same files differ")
		}
	}
}

// function is a function of about 20 lines for the span tests; name
// differs per copy so the copies are not identical text.
func function(name string) string {
	return fmt.Sprintf(`func %s(logits []float32, temperature float64) []float64 {
	p := make([]float64, len(logits))
	if len(logits) == 0 {
		return p
	}
	m := math.Inf(-1)
	for _, z := range logits {
		m = max(m, float64(z)/temperature)
	}
	var sum float64
	for i, z := range logits {
		p[i] = math.Exp(float64(z)/temperature - m)
		sum += p[i]
	}
	for i := range p {
		p[i] /= sum
	}
	return p
}
`, name)
}

// fillers are statements unlike function's, of three kinds that share no
// run of K symbols with each other.
var fillers = [][]string{
	{
		"out = append(out, strings.ToUpper(s))",
		"if strings.HasPrefix(s, \"x\") { out = nil }",
		"s = strings.TrimSpace(s + \"!\")",
		"defer func() { out = append(out, \"done\") }()",
	},
	{
		"for range 3 { s += s[:1] }",
		"switch len(out) { case 2: out = out[1:] }",
		"out = append([]string{s}, out...)",
		"go func(c chan int) { c <- 1 }(nil)",
	},
	{
		"s = fmt.Sprint(len(s), cap(out))",
		"if s == \"\" || len(out) > 9 { panic(s) }",
		"out = out[:len(out):len(out)]",
		"select { default: s = s[1:] }",
	},
}

// fillerSignatures and fillerReturns are how the functions of each kind of
// fillers begin and end.
var (
	fillerSignatures = []string{"(s string) (out []string)", "(out []string, s string) []string", "(s string, out ...string) (string, []string)"}
	fillerReturns    = []string{"out", "append(out, s)", "s, out"}
)

// filler returns a function of the given number of statements of one kind
// of fillers.
func filler(name string, kind, lines int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "func %s%s {\n", name, fillerSignatures[kind])
	for i := range lines {
		b.WriteString("\t" + fillers[kind][i%len(fillers[kind])] + "\n")
	}
	b.WriteString("\treturn " + fillerReturns[kind] + "\n}\n")
	return b.String()
}

// TestSpansNameTheCopiedLines: one function shared by two documents, at
// different places among unrelated code, is found at its lines in each.
func TestSpansNameTheCopiedLines(t *testing.T) {
	const header = "package p\n\nimport (\n\t\"fmt\"\n\t\"math\"\n\t\"strings\"\n)\n\n"
	// a.go: header (lines 1-8), filler (9-31), the function (32-50).
	a := header + filler("f", 0, 21) + function("softmax")
	// b.go: header, the function (9-27), filler (28-…).
	b := header + function("probabilities") + filler("g", 1, 21)
	fa := Of(map[string][]byte{"a.go": []byte(a)}, nil)
	fb := Of(map[string][]byte{"b.go": []byte(b)}, nil)
	m := Compare(fa, fb)
	if m.Shared < MinShared {
		t.Fatalf("a 19-line function in both shares %d hashes; want at least MinShared = %d", m.Shared, MinShared)
	}
	for _, c := range []struct {
		spans    []Span
		file     string
		from, to int
	}{
		{m.A, "a.go", 32, 50},
		{m.B, "b.go", 9, 27},
	} {
		if len(c.spans) != 1 {
			t.Errorf("spans %v; want one, in %s:%d-%d", c.spans, c.file, c.from, c.to)
			continue
		}
		s := c.spans[0]
		// The spans cover whole k-grams, so they may reach a line or two
		// beyond the function into code that happens to look the same.
		if s.File != c.file || s.From < c.from-1 || s.To > c.to+1 || s.To-s.From < (c.to-c.from)*3/4 {
			t.Errorf("span %v; want about %s:%d-%d", s, c.file, c.from, c.to)
		}
	}
}

// TestSpansAreTheLargest: when more than MaxSpans separate ranges are
// shared, the largest are listed, in file and line order.
func TestSpansAreTheLargest(t *testing.T) {
	const header = "package p\n\nimport (\n\t\"fmt\"\n\t\"math\"\n\t\"strings\"\n)\n\n"
	var a, b strings.Builder
	a.WriteString(header)
	b.WriteString(header)
	lines := func(b *strings.Builder) int { return strings.Count(b.String(), "\n") }
	var startA, startB int // where the first of the copies to keep starts
	const copies = MaxSpans + 3
	for i := range copies {
		// Copy i is i filler lines longer than copy 0, so the largest are
		// the last MaxSpans.
		shared := function(fmt.Sprint("s", i)) + filler(fmt.Sprint("t", i), 2, i)
		if i == copies-MaxSpans {
			startA = lines(&a) + 1
		}
		a.WriteString(shared + filler(fmt.Sprint("a", i), 0, 20))
		b.WriteString(filler(fmt.Sprint("b", i), 1, 25))
		if i == copies-MaxSpans {
			startB = lines(&b) + 1
		}
		b.WriteString(shared)
	}
	m := Compare(Of(map[string][]byte{"a.go": []byte(a.String())}, nil), Of(map[string][]byte{"b.go": []byte(b.String())}, nil))
	for _, c := range []struct {
		spans []Span
		start int
	}{{m.A, startA}, {m.B, startB}} {
		if len(c.spans) != MaxSpans {
			t.Fatalf("%d spans %v; want MaxSpans = %d", len(c.spans), c.spans, MaxSpans)
		}
		if c.spans[0].From < c.start-1 {
			t.Errorf("spans %v: want the last %d copies, from line %d", c.spans, MaxSpans, c.start)
		}
		for i := 1; i < len(c.spans); i++ {
			if c.spans[i].From <= c.spans[i-1].To {
				t.Errorf("spans %v are not in line order", c.spans)
			}
		}
	}
}

func TestSpanString(t *testing.T) {
	for _, c := range []struct {
		s    Span
		want string
	}{
		{Span{"loop.go", 12, 30}, "loop.go:12-30"},
		{Span{"loop.go", 7, 7}, "loop.go:7"},
	} {
		if got := c.s.String(); got != c.want {
			t.Errorf("%#v.String() = %q; want %q", c.s, got, c.want)
		}
	}
}

// TestBaseCodeIsNotShared: two learners who both keep the stub code share
// nothing for it, while the same code counts when there is no base.
func TestBaseCodeIsNotShared(t *testing.T) {
	const header = "package p\n\nimport (\n\t\"fmt\"\n\t\"math\"\n\t\"strings\"\n)\n\n"
	stub := header + function("given")
	base := NewBase(map[string][]byte{"given.go": []byte(stub)})
	a := map[string][]byte{"given.go": []byte(stub), "a.go": []byte(header + filler("f", 0, 20))}
	b := map[string][]byte{"moved.go": []byte(header + filler("g", 1, 30) + function("given"))}
	if m := Compare(Of(a, base), Of(b, base)); m.Shared != 0 {
		t.Errorf("with the base, learners who both kept the given function share %d hashes at %v and %v; want 0", m.Shared, m.A, m.B)
	}
	if m := Compare(Of(a, nil), Of(b, nil)); m.Shared < MinShared {
		t.Errorf("without a base, the same learners share %d hashes; want at least %d", m.Shared, MinShared)
	}
}
