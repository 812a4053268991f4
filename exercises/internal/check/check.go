// Package check holds what the exercises' tests share: grading the checkpoint
// quizzes without keeping their answers in plain text, and turning a panic in
// the code under test into a failure message instead of a crash.
//
// Only test files import it. A learner's own code never needs it.
package check

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// Hash is the fingerprint of an answer that the quiz tests compare with: the
// SHA-256 of the exercise folder's name, the question number and the answer,
// normalised (trimmed, lower case). The tests store only this, so reading them
// does not give the answers away.
func Hash(exercise string, question int, answer string) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("tokenbytoken/%s/%d/%s", exercise, question, Normalize(answer))))
	return hex.EncodeToString(sum[:])
}

// Normalize is how an answer is read: surrounding spaces and case do not
// matter, so " B" and "b" are the same answer.
func Normalize(answer string) string {
	return strings.ToLower(strings.TrimSpace(answer))
}

// Quiz checks the answer to one question of an exercise's checkpoint quiz
// against the fingerprint of the right answer (see Hash). name is the
// identifier the learner edits, used in the failure message; choices lists the
// letters the question offers.
func Quiz(t *testing.T, exercise string, question int, name, answer, choices, want string) {
	t.Helper()
	if msg := quizMessage(exercise, question, name, answer, choices, want); msg != "" {
		t.Error(msg)
	}
}

// quizMessage is Quiz's verdict: "" for the right answer, else what is wrong.
func quizMessage(exercise string, question int, name, answer, choices, want string) string {
	a := Normalize(answer)
	switch {
	case a == "":
		return fmt.Sprintf("question %d: %s is empty; set it to one of the letters %q (in quiz.go)", question, name, choices)
	case len(a) != 1 || !strings.Contains(choices, a):
		return fmt.Sprintf("question %d: %s = %q, which is not one of the choices; answer with one letter of %q", question, name, answer, choices)
	case Hash(exercise, question, a) != want:
		return fmt.Sprintf("question %d: %s = %q is not the right answer; re-read the question and the notebook's section on it, then try again", question, name, answer)
	}
	return ""
}

// Recover turns a panic in the code under test into a test failure that says
// what panicked and where, so one unfinished function does not stop the other
// tests. Use it as the first line of a test:
//
//	defer check.Recover(t)
//
// It does not trust recover() alone: panic(nil) recovers as nil where the
// program asks for the old behaviour (GODEBUG panicnil=1), which would make
// a panicking test look as if it returned. So it also looks at how it was
// called: a deferred call made while a panic unwinds the stack runs under
// the runtime's panic function, and one made by runtime.Goexit under
// Goexit; a test that returns normally has neither.
func Recover(t *testing.T) {
	r := recover()
	how := unwinding()
	t.Helper()
	switch {
	case r != nil:
		t.Errorf("your code panicked: %v\n%s", r, learnerFrames(debug.Stack()))
	case how == "panic":
		t.Errorf("your code panicked with a nil value\n%s", learnerFrames(debug.Stack()))
	case how == "goexit" && !t.Failed() && !t.Skipped():
		// t.Fatal and t.Skip end a test with Goexit too, after marking it.
		t.Errorf("your code stopped the test before it could finish (runtime.Goexit)\n%s", learnerFrames(debug.Stack()))
	}
}

// unwinding says why the deferred call that called it is running: "panic",
// "goexit", or "" for a normal return.
func unwinding() string {
	var pcs [64]uintptr
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs[:])])
	for {
		f, more := frames.Next()
		switch f.Function {
		case "runtime.gopanic":
			return "panic"
		case "runtime.Goexit":
			return "goexit"
		case "testing.tRunner":
			return "" // the test's own frames are behind us
		}
		if !more {
			return ""
		}
	}
}

// learnerFrames keeps the lines of a stack trace that point into non-test
// files of the exercise: where in the learner's code the panic happened.
func learnerFrames(stack []byte) string {
	var out []string
	lines := strings.Split(string(stack), "\n")
	for i := 1; i < len(lines); i++ {
		fields := strings.Fields(lines[i])
		if len(fields) == 0 || !strings.Contains(fields[0], ".go:") {
			continue
		}
		path := fields[0]
		if strings.Contains(path, "_test.go:") || strings.Contains(path, "/src/runtime/") ||
			strings.Contains(path, "/src/testing/") || strings.Contains(path, "/internal/check/") {
			continue
		}
		out = append(out, "\tat "+strings.TrimSpace(lines[i-1])+" ("+path+")")
		if len(out) == 3 {
			break
		}
	}
	return strings.Join(out, "\n")
}
