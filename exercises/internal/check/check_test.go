package check

import (
	"os"
	"os/exec"
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

// TestRecoverSeesEveryWayOut runs tests that end in each way a test can end,
// in a child test binary with GODEBUG=panicnil=1, where panic(nil)
// recovers as nil: Recover must fail the ones that did not return.
func TestRecoverSeesEveryWayOut(t *testing.T) {
	if os.Getenv("CHECK_RECOVER_CHILD") == "1" {
		t.Skip("run by the parent")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRecoverChild", "-test.v")
	cmd.Env = append(os.Environ(), "CHECK_RECOVER_CHILD=1", "GODEBUG=panicnil=1")
	out, _ := cmd.CombinedOutput()
	for name, want := range map[string]string{
		"TestRecoverChildReturns":  "--- PASS: TestRecoverChildReturns",
		"TestRecoverChildPanicNil": "--- FAIL: TestRecoverChildPanicNil",
		"TestRecoverChildPanics":   "--- FAIL: TestRecoverChildPanics",
		"TestRecoverChildFatal":    "--- FAIL: TestRecoverChildFatal",
		"TestRecoverChildSkips":    "--- SKIP: TestRecoverChildSkips",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("%s: want %q in the child's output:\n%s", name, want, out)
		}
	}
	if !strings.Contains(string(out), "your code panicked with a nil value") {
		t.Errorf("panic(nil) under panicnil=1 was not reported as a panic:\n%s", out)
	}
	if strings.Contains(string(out), "runtime.Goexit") {
		t.Errorf("t.Fatal or t.Skip was reported as graded code stopping the test:\n%s", out)
	}
}

func childOnly(t *testing.T) {
	if os.Getenv("CHECK_RECOVER_CHILD") != "1" {
		t.Skip("run by TestRecoverSeesEveryWayOut")
	}
}

func TestRecoverChildReturns(t *testing.T) {
	childOnly(t)
	defer Recover(t)
}

func TestRecoverChildPanicNil(t *testing.T) {
	childOnly(t)
	defer Recover(t)
	panic(nil)
}

func TestRecoverChildPanics(t *testing.T) {
	childOnly(t)
	defer Recover(t)
	var m map[string]int
	m["x"] = 1
}

func TestRecoverChildFatal(t *testing.T) {
	childOnly(t)
	defer Recover(t)
	t.Fatal("a test's own failure")
}

func TestRecoverChildSkips(t *testing.T) {
	childOnly(t)
	defer Recover(t)
	t.Skip("a test's own skip")
}
