package constrain_test

import (
	"math/rand/v2"
	"os"
	"testing"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/constrain"
	"github.com/tokenbytoken/course/engine/internal/testmodel"
	"github.com/tokenbytoken/course/engine/models"
)

func languages(t testing.TB) map[string]*constrain.Grammar {
	out := map[string]*constrain.Grammar{}
	for _, f := range []string{"json.gbnf", "select.gbnf"} {
		src, err := os.ReadFile("testdata/" + f)
		if err != nil {
			t.Fatal(err)
		}
		if out[f], err = constrain.ParseGrammar(string(src)); err != nil {
			t.Fatal(err)
		}
	}
	src, err := os.ReadFile("testdata/city.json")
	if err != nil {
		t.Fatal(err)
	}
	if out["city.json"], err = constrain.JSONSchema(src); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{`[A-Z][a-zé]+( [0-9]{1,3})?`, `(?i)(yes|no|maybe)\.`, `.{0,12}\n`} {
		if out[p], err = constrain.Regexp(p); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// checkTrie walks random paths through each language with the vocabulary,
// and at every step compares the trie's mask with the brute-force one,
// which tries each token's text, for several budgets.
func checkTrie(t *testing.T, tok *engine.Tokenizer, steps int) {
	v, err := tok.ConstraintVocabulary()
	if err != nil {
		t.Fatal(err)
	}
	text := func(id int) []byte { return v.Text(id) }
	r := rand.New(rand.NewPCG(7, 8))
	for name, g := range languages(t) {
		c := constrain.New(g, v)
		s := c.Start()
		for step := range steps {
			budget := []int{0, 1, 2, 5, 40}[r.IntN(5)]
			trie := c.Allowed(s, budget)
			brute := c.AllowedBy(s, budget, text)
			if trie.Count() != brute.Count() {
				t.Fatalf("%s step %d budget %d: the trie allows %d tokens, trying every token %d", name, step, budget, trie.Count(), brute.Count())
			}
			for _, id := range brute.IDs() {
				if !trie.Allowed(id) {
					t.Fatalf("%s step %d: token %d (%q) is allowed by brute force, not by the trie", name, step, id, v.Text(id))
				}
			}
			ids := c.Allowed(s, 0).IDs()
			if len(ids) == 0 || s.Done() {
				s = c.Start()
				continue
			}
			id := ids[r.IntN(len(ids))]
			if v.IsEnd(id) {
				s = c.Start()
				continue
			}
			if s, err = c.Advance(s, id); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestTrieMatchesBruteForceCourseVocabulary(t *testing.T) {
	_, tok, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	checkTrie(t, tok, 60)
}

func TestTrieMatchesBruteForceSmolLM2(t *testing.T) {
	_, tok, err := engine.Load(testmodel.Path(t, testmodel.SmolLM2), "")
	if err != nil {
		t.Fatal(err)
	}
	steps := 25
	if testing.Short() {
		steps = 5
	}
	checkTrie(t, tok, steps)
}
