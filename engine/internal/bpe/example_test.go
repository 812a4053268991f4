package bpe_test

import (
	"fmt"

	"github.com/tokenbytoken/course/engine/internal/bpe"
)

func Example() {
	// A toy byte-level vocabulary, spelled as GGUF files spell it: "Ġ"
	// stands for the space byte. The merges build "hello" and " world".
	tok, err := bpe.New(bpe.Spec{
		Model: "gpt2",
		Pre:   "gpt-2",
		Tokens: []string{
			"<|endoftext|>", "h", "e", "l", "o", "w", "r", "d", "Ġ",
			"ll", "he", "hell", "hello", "Ġw", "or", "Ġwor", "ld", "Ġworld",
		},
		// With no Types, all tokens are normal, except that <|endoftext|>,
		// known to end a turn, is made a control token.
		Merges: []string{"l l", "h e", "he ll", "hell o", "Ġ w", "o r", "Ġw or", "l d", "Ġwor ld"},
		BOS:    bpe.None, EOS: 0, UNK: bpe.None, PAD: bpe.None, EOT: bpe.None, EOM: bpe.None,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ids, err := tok.Encode("hello world", false, false, false)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, id := range ids {
		fmt.Printf("%d %q stands for %q\n", id, tok.Token(id), tok.Piece(id))
	}
	fmt.Printf("%q\n", tok.Decode(ids))

	// With parseSpecial, "<|endoftext|>" in the text is the control token.
	ids, err = tok.Encode("hello<|endoftext|>", false, false, true)
	fmt.Println(ids, err, tok.IsEndOfGeneration(0))
	// Output:
	// 12 "hello" stands for "hello"
	// 17 "Ġworld" stands for " world"
	// "hello world"
	// [12 0] <nil> true
}
