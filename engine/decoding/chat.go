package decoding

import (
	"context"
	"iter"

	"github.com/tokenbytoken/course/engine"
)

// Chat generates the model's answer to a conversation: Generate, on the
// conversation rendered by ChatPrompt with the assistant's turn begun.
// The answer ends at the model's end-of-turn token (FinishEOS; the last
// step's Stats.EndToken names it), unless a limit or a stop condition
// comes first. Steps carry the answer alone.
func Chat(ctx context.Context, m *engine.Model, tok *engine.Tokenizer, messages []engine.Message, opts Options) iter.Seq2[Step, error] {
	prompt, err := tok.ChatPrompt(messages, true)
	if err != nil {
		return func(yield func(Step, error) bool) { yield(Step{}, err) }
	}
	return Generate(ctx, m, tok, prompt, opts)
}
