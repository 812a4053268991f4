package check

import (
	"strings"
	"testing"
)

func TestHashNormalizes(t *testing.T) {
	a := Hash("02-softmax", 1, "b")
	for _, same := range []string{"B", " b", "b\n"} {
		if got := Hash("02-softmax", 1, same); got != a {
			t.Errorf("Hash(02-softmax, 1, %q) = %s; want %s, the same as for \"b\"", same, got, a)
		}
	}
	for _, other := range []struct {
		ex     string
		q      int
		answer string
	}{{"02-softmax", 1, "c"}, {"02-softmax", 2, "b"}, {"03-greedy", 1, "b"}} {
		if Hash(other.ex, other.q, other.answer) == a {
			t.Errorf("Hash(%s, %d, %q) equals Hash(02-softmax, 1, \"b\"); every exercise, question and answer must differ", other.ex, other.q, other.answer)
		}
	}
	if len(a) != 64 || strings.Trim(a, "0123456789abcdef") != "" {
		t.Errorf("Hash = %q; want 64 lower-case hex digits", a)
	}
}

func TestQuizMessages(t *testing.T) {
	want := Hash("02-softmax", 1, "b")
	cases := []struct {
		answer  string
		failing string // part of the message; "" for a pass
	}{
		{"b", ""},
		{" B ", ""},
		{"", "is empty"},
		{"e", "not one of the choices"},
		{"ab", "not one of the choices"},
		{"c", "not the right answer"},
	}
	for _, c := range cases {
		got := quizMessage("02-softmax", 1, "Answer1", c.answer, "abcd", want)
		switch {
		case c.failing == "" && got != "":
			t.Errorf("quiz answer %q failed with %q; want a pass", c.answer, got)
		case c.failing != "" && !strings.Contains(got, c.failing):
			t.Errorf("quiz answer %q gave %q; want a message containing %q", c.answer, got, c.failing)
		}
	}
}

func TestLearnerFramesKeepsTheLearnersLines(t *testing.T) {
	stack := "goroutine 1 [running]:\nmain.f()\n\t/x/exercises/02-softmax/softmax.go:12 +0x1\ntesting.tRunner()\n\t/usr/go/src/testing/testing.go:1 +0x2\n"
	got := learnerFrames([]byte(stack))
	if !strings.Contains(got, "softmax.go:12") || strings.Contains(got, "testing.go") {
		t.Errorf("learnerFrames kept %q; want the softmax.go line and not testing.go", got)
	}
}
