package bpe

import (
	"sort"
	"strings"
)

// Special tokens are never produced by merging: "<|im_start|>" written in a
// prompt would otherwise be spelled with ordinary tokens like any other
// text. So, before tokenizing, the text is searched for the special
// tokens' texts and cut around them, as llama.cpp does: the longest special
// token is cut out first, everywhere, then the next longest in what is
// left, and so on.
//
// Control and unknown tokens are cut out only when the caller asks
// (parseSpecial), typically for a prompt built from a chat template, not
// for text a user typed. User-defined tokens are always cut out: they are
// ordinary text that the vocabulary keeps whole.

// markEndOfGeneration finds the tokens that end a model's turn: EOS, EOT,
// EOM, and the tokens whose text says so. GGUF files name at most the first
// three, so llama.cpp recognises the others by their text, and makes them
// control tokens if the file did not (some files type "</s>" or
// "<|im_end|>" as ordinary text); so does this.
func (t *Tokenizer) markEndOfGeneration() {
	t.eog = make(map[int]bool)
	for _, id := range []int{t.eos, t.eot, t.eom} {
		if id != None {
			t.eog[id] = true
		}
	}
	for _, text := range endOfGenerationTexts {
		if id, ok := t.ids[text]; ok {
			t.eog[int(id)] = true
			t.types[id] = Control
		}
	}
}

// endOfGenerationTexts are the texts of the tokens that end a turn in the
// chat formats llama.cpp knows (its list, less a few exceptions it makes
// for single models).
var endOfGenerationTexts = []string{
	"<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>",
	"<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]",
	"<|end_of_text|>", "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>",
	"<｜end▁of▁sentence｜>", "[e~[",
}

// buildSpecials lists the tokens to cut out, longest first (ties by id).
func (t *Tokenizer) buildSpecials() {
	for id, typ := range t.types {
		if (typ == Control || typ == UserDefined || typ == Unknown) && t.tokens[id] != "" {
			t.specials = append(t.specials, int32(id))
		}
	}
	sort.SliceStable(t.specials, func(i, j int) bool {
		return len(t.tokens[t.specials[i]]) > len(t.tokens[t.specials[j]])
	})
}

// IsEndOfGeneration reports whether generating id ends the model's turn:
// EOS, EOT, EOM, and tokens such as <|im_end|> and <|endoftext|>; for a
// llama2.c vocabulary, BOS and EOS.
func (t *Tokenizer) IsEndOfGeneration(id int) bool {
	return t.eog[id]
}

// A fragment is a piece of text to tokenize, or, if id is not None, a
// special token already found.
type fragment struct {
	text string
	id   int
}

// partition cuts the special tokens out of text.
func (t *Tokenizer) partition(text string, parseSpecial bool) []fragment {
	if text == "" {
		return nil
	}
	frags := []fragment{{text: text, id: None}}
	for _, id := range t.specials {
		if !parseSpecial && t.types[id] != UserDefined {
			continue
		}
		special := t.tokens[id]
		if !anyContains(frags, special) {
			continue
		}
		var next []fragment
		for _, f := range frags {
			if f.id != None || !strings.Contains(f.text, special) {
				next = append(next, f)
				continue
			}
			rest := f.text
			for {
				i := strings.Index(rest, special)
				if i < 0 {
					break
				}
				if i > 0 {
					next = append(next, fragment{text: rest[:i], id: None})
				}
				next = append(next, fragment{id: int(id)})
				rest = rest[i+len(special):]
			}
			if rest != "" {
				next = append(next, fragment{text: rest, id: None})
			}
		}
		frags = next
	}
	return frags
}

func anyContains(frags []fragment, s string) bool {
	for _, f := range frags {
		if f.id == None && strings.Contains(f.text, s) {
			return true
		}
	}
	return false
}
