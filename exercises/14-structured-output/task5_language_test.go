package structured

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/tokenbytoken/course/exercises/internal/check"
)

// checkOffset runs Check and describes what is wrong with its answer, or
// returns "": want is the Offset of the *LanguageError it must return, or
// -1 for nil.
func checkOffset(a *Automaton, text []byte, want int) string {
	err := Check(a, text)
	var le *LanguageError
	switch {
	case want < 0 && err == nil:
		return ""
	case want < 0:
		return "= " + q(err.Error()) + "; want nil: the text is in the language"
	case err == nil:
		return "= nil; want a *LanguageError with Offset " + strconv.Itoa(want)
	case !errors.As(err, &le):
		return "= " + q(err.Error()) + ", which is not a *LanguageError; want one with Offset " + strconv.Itoa(want)
	case le.Offset != want:
		return "= a *LanguageError with Offset " + strconv.Itoa(le.Offset) + "; want Offset " + strconv.Itoa(want)
	case string(le.Text) != string(text):
		return "= a *LanguageError with Text " + q(string(le.Text)) + "; want the text checked"
	}
	return ""
}

// TestTask5_Check: texts in the language, incomplete ones, and ones that
// leave it: where they leave it is the first byte that no text of the
// language could have there, a byte that leads into a trap included.
//
//grade:task 5 points 2
func TestTask5_Check(t *testing.T) {
	defer check.Recover(t)
	fails := check.NewLimit(t, 4)
	defer fails.Close()
	for _, c := range []struct {
		name string
		a    *Automaton
		text string
		want int // -1: in the language
		why  string
	}{
		{"jsonN", jsonN(t), `{"n":12}`, -1, "a whole value"},
		{"jsonN", jsonN(t), `{"n":0}`, -1, "a whole value"},
		{"jsonN", jsonN(t), `{"n":12`, 7, "incomplete: the object is still open"},
		{"jsonN", jsonN(t), ``, 0, "incomplete: nothing yet"},
		{"jsonN", jsonN(t), `{"n":1a}`, 6, "the a"},
		{"jsonN", jsonN(t), `{"n":}`, 5, "no digit before }"},
		{"jsonN", jsonN(t), `{"n":12}}`, 8, "nothing may follow the object"},
		{"jsonN", jsonN(t), `x`, 0, "the first byte"},
		{"trapped", trapped(t), `ab`, -1, "a whole value"},
		{"trapped", trapped(t), `x`, 0, "x leads to state 3, which never accepts: no text of the language begins with x"},
		{"trapped", trapped(t), `xxx`, 0, "the first x already cannot be completed"},
		{"trapped", trapped(t), `ax`, 1, "the x"},
		{"accents", accents(t), "é", -1, "é, in UTF-8"},
		{"accents", accents(t), "éèé", -1, "three of them"},
		{"accents", accents(t), "\xc3", 1, "half of é: incomplete"},
		{"accents", accents(t), "é\xc3", 3, "then half of the next one: incomplete"},
		{"accents", accents(t), "\xc3e", 1, "e is not the second half of a character"},
		{"accents", accents(t), "e", 0, "e is not é"},
	} {
		if msg := checkOffset(c.a, []byte(c.text), c.want); msg != "" {
			fails.Errorf("Check(%s, %s) %s (%s)\n  %s: %s", c.name, q(c.text), msg, c.why, c.name, describe(c.a))
		}
	}
	empty := build(t, 0, nil, Edge{0, "a", 1})
	if err := Check(empty, []byte("a")); err == nil {
		fails.Errorf("Check(%s, \"a\") = nil; want an error: the language has no text at all", describe(empty))
	}
}

// TestTask5_CheckBruteForce: on random automata and texts, Check agrees
// with trying every completion of every beginning of the text.
//
//grade:task 5 points 2
func TestTask5_CheckBruteForce(t *testing.T) {
	defer check.Recover(t)
	r := rand.New(rand.NewPCG(14, 6))
	fails := check.NewLimit(t, 3)
	defer fails.Close()
	for range 300 {
		a := randomAutomaton(t, r)
		for range 4 {
			text := randomText(r, 8)
			want := offsetRef(a, alphabet, text)
			if want < 0 {
				if err := Check(a, text); err == nil {
					fails.Errorf("Check(a, %s) = nil; want an error: the language has no text at all\n  a: %s", q(string(text)), describe(a))
				}
				break
			}
			if want == len(text) && a.Accepting(walkRef(a, a.Start(), text)) {
				want = -1
			}
			if msg := checkOffset(a, text, want); msg != "" {
				fails.Errorf("Check(a, %s) %s\n  a: %s", q(string(text)), msg, describe(a))
			}
		}
	}
}
