package notebook

import (
	"bufio"
	"encoding/json"
	"github.com/tokenbytoken/course/engine/internal/testmodel"
	"github.com/tokenbytoken/course/engine/models"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTokenTextCourseModel(t *testing.T) {
	_, tok, err := models.Default()
	if err != nil {
		t.Fatal(err)
	}
	text := TokenText(tok)
	for piece, want := range map[string]string{"<0x0A>": "\n", "<0x09>": "\t", "<0xE2>": "<0xE2>"} {
		id, ok := tok.Lookup(piece)
		if !ok {
			t.Fatalf("the course's vocabulary has no %q", piece)
		}
		if got := text(id); got != want {
			t.Errorf("TokenText(%q) = %q, want %q", piece, got, want)
		}
	}
	// An ordinary piece is its own text, space included.
	ids, err := tok.Encode("x return", false, false)
	if err != nil {
		t.Fatal(err)
	}
	last := ids[len(ids)-1]
	if got := text(last); got != tok.Piece(last) || !strings.HasPrefix(got, " ") {
		t.Errorf("TokenText of %q = %q", tok.Piece(last), got)
	}
	if got := text(-1); !strings.Contains(got, "-1") {
		t.Errorf("TokenText(-1) = %q, want it to name the id", got)
	}
	if got := TokenTexts(tok, []int{ids[len(ids)-1]}); len(got) != 1 || got[0] != text(last) {
		t.Errorf("TokenTexts = %q", got)
	}
}

// TestTokenTextSmolLM2 checks the labels of SmolLM2's byte-level pieces
// against llama.cpp's rendering of the same tokens (the pieces it recorded
// for its greedy runs, special tokens as their own text).
func TestTokenTextSmolLM2(t *testing.T) {
	testmodel.Path(t, testmodel.SmolLM2)
	_, tok, err := models.SmolLM2()
	if err != nil {
		t.Fatal(err)
	}
	root, err := testmodel.Root()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(root, "engine", "testdata", "llamacpp", "smollm2-greedy.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	text := TokenText(tok)
	checked := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var run struct {
			Steps []struct {
				ID    int    `json:"id"`
				Piece string `json:"piece"`
			} `json:"steps"`
		}
		if err := json.Unmarshal(sc.Bytes(), &run); err != nil {
			t.Fatal(err)
		}
		for _, s := range run.Steps {
			got := text(s.ID)
			if strings.ContainsRune(s.Piece, utf8.RuneError) {
				// llama.cpp wrote U+FFFD for each byte that is not a
				// character on its own; we write the byte.
				if !strings.Contains(got, "<0x") {
					t.Errorf("token %d: %q, want its lone bytes as <0xHH> (llama.cpp: %q)", s.ID, got, s.Piece)
				}
				continue
			}
			if got != s.Piece {
				t.Errorf("token %d: %q, llama.cpp renders it %q", s.ID, got, s.Piece)
			}
			checked++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Errorf("only %d tokens checked", checked)
	}
}
