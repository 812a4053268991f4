package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"github.com/tokenbytoken/course/engine/decoding"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// printer shows a generation as it happens. generate flushes its output
// after every step and before end, so text and summary never interleave.
type printer interface {
	start(prompt string) error
	step(s decoding.Step) error
	// end prints the summary, given the last step (the one with Finish)
	// and the decoder's notes.
	end(last decoding.Step, notes []string) error
}

// textPrinter streams the prompt and the text to stdout; at the end it
// says on stderr why generation stopped, in words, and how fast it ran.
type textPrinter struct {
	out        *bufio.Writer
	stderr     io.Writer
	cfg        *config
	contextLen int
	prompt     *string // the prompt, until the first step shows it (an error before that prints no text)
	lastByte   byte    // the last byte written to out, to end the text with a newline
	// exact: stdout carries exactly the text, without a final newline
	// (a constrained text, for a program to read); the newline that
	// puts the summary on a line of its own then goes to stderr, when
	// the two streams may share a terminal or a pipe (shared).
	exact, shared bool
}

func (p *textPrinter) start(prompt string) error { p.prompt = &prompt; return nil }

func (p *textPrinter) write(s string) error {
	if p.prompt != nil {
		prompt := *p.prompt
		p.prompt = nil
		if err := p.write(prompt); err != nil {
			return err
		}
	}
	if s == "" {
		return nil
	}
	p.lastByte = s[len(s)-1]
	_, err := p.out.WriteString(s)
	return err
}

func (p *textPrinter) step(s decoding.Step) error { return p.write(s.Text) }

func (p *textPrinter) end(last decoding.Step, notes []string) error {
	if err := p.write(""); err != nil { // the prompt, if no step has shown it
		return err
	}
	newline := p.lastByte != '\n' && p.lastByte != 0
	if newline && !p.exact {
		if err := p.write("\n"); err != nil {
			return err
		}
	}
	if err := p.out.Flush(); err != nil {
		return err
	}
	var b strings.Builder
	if newline && p.exact && p.shared {
		b.WriteString("\n")
	}
	for _, n := range notes {
		b.WriteString(n + "\n")
	}
	if last.Finish != "" {
		fmt.Fprintf(&b, "stopped: %s\n", describeFinish(last, p.cfg, p.contextLen))
	}
	if st := last.Stats; st != nil {
		fmt.Fprintf(&b, "speed: prompt %s in %s (%.0f tok/s), %s in %s (%.0f tok/s)\n",
			count(st.PromptTokens, "token"), millis(st.Prefill), st.PrefillTokensPerSecond(),
			count(st.GeneratedTokens, "new token"), millis(st.Decode), st.DecodeTokensPerSecond())
	}
	if p.cfg.seedPicked && p.cfg.temperature > 0 && p.cfg.beam == 0 {
		fmt.Fprintf(&b, "seed: %d, picked from the clock (-seed %d writes this text again)\n", p.cfg.seed, p.cfg.seed)
	}
	_, err := io.WriteString(p.stderr, b.String())
	return err
}

// describeFinish says in words why a generation ended.
func describeFinish(last decoding.Step, cfg *config, contextLen int) string {
	n := 0
	if last.Stats != nil {
		n = last.Stats.GeneratedTokens
	}
	switch last.Finish {
	case decoding.FinishEOS:
		// The end token is not part of the text, but the model generated
		// it like any other, with a forward pass of its own, and the speed
		// line counts it among the new tokens. Giving its place, rather
		// than the count of the tokens before it, keeps one number for
		// both lines: "as its 9th token" beside "9 new tokens" says that
		// 8 tokens of text came first.
		end := "end-of-text"
		if last.Stats != nil && last.Stats.EndToken != "" {
			end = "its end token " + last.Stats.EndToken
		}
		return fmt.Sprintf("the model wrote %s as its %s token", end, ordinal(n))
	case decoding.FinishLength:
		return fmt.Sprintf("%s written, the limit set by -n %d", count(n, "token"), cfg.maxNew)
	case decoding.FinishContext:
		prompt := 0
		if last.Stats != nil {
			prompt = last.Stats.PromptTokens
		}
		// Generate never runs its last token, so that token needs no
		// position and the prompt and the new tokens can come to one
		// more than the context. Say so, or the numbers would not add up.
		if inside := contextLen - prompt; n > inside {
			return fmt.Sprintf("the model's context is full after %s: its %d positions hold the %d tokens of the prompt and the first %d new ones; the last new token needs none, as it is never run",
				count(n, "token"), contextLen, prompt, inside)
		}
		return fmt.Sprintf("the model's context is full after %s: its %d positions hold the %d tokens of the prompt and the %d new ones", count(n, "token"), contextLen, prompt, n)
	case decoding.FinishStop:
		seq := ""
		if last.Stats != nil {
			seq = last.Stats.StopSequence
		}
		kept := "left out of the text"
		if cfg.includeStop {
			kept = "kept in the text"
		}
		return fmt.Sprintf("the text reached the stop sequence %q (%s) after %s", seq, kept, count(n, "token"))
	case decoding.FinishDeadline:
		return fmt.Sprintf("the -timeout of %v ran out after %s", cfg.timeout, count(n, "token"))
	case decoding.FinishCancelled:
		return fmt.Sprintf("cancelled after %s", count(n, "token"))
	case decoding.FinishPredicate:
		return fmt.Sprintf("the stop rule said so after %s", count(n, "token"))
	case decoding.FinishConstraint:
		return fmt.Sprintf("the text is complete: nothing may follow it in the language of %s, after %s", cfg.languageFlag(), count(n, "token"))
	case decoding.FinishUnsatisfiable:
		return fmt.Sprintf("no token of the model can continue the text in the language of %s, after %s", cfg.languageFlag(), count(n, "token"))
	}
	return fmt.Sprintf("%s after %s", last.Finish, count(n, "token"))
}

// count writes "1 token" or "n tokens".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// ordinal writes n as "1st", "2nd", "3rd", "4th", ..., "11th", ..., "21st".
func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}

// millis writes a duration in milliseconds with one decimal.
func millis(d time.Duration) string { return fmt.Sprintf("%.1f ms", ms(d)) }

// jsonPrinter writes one object per token and a summary.
type jsonPrinter struct {
	w          io.Writer
	stderr     io.Writer // the decoder's notes
	cfg        *config
	contextLen int
	prompt     string
	text       strings.Builder
}

// tokenJSON is one generated token.
type tokenJSON struct {
	Type        string    `json:"type"` // "token"
	ID          int       `json:"id"`
	Pos         int       `json:"pos"`
	Text        string    `json:"text"`  // text released at this step (valid UTF-8; may be empty while held back)
	Bytes       []int     `json:"bytes"` // the token's raw bytes
	LogProb     jsonFloat `json:"logprob"`
	TopLogProbs []altJSON `json:"top_logprobs,omitempty"`
}

// altJSON is one alternative at a position.
type altJSON struct {
	ID      int       `json:"id"`
	Text    string    `json:"text"`
	Bytes   []int     `json:"bytes"`
	LogProb jsonFloat `json:"logprob"`
}

// summaryJSON ends the output.
type summaryJSON struct {
	Type                   string    `json:"type"` // "summary"
	FinishReason           string    `json:"finish_reason"`
	Stopped                string    `json:"stopped"` // the finish reason in words
	StopSequence           string    `json:"stop_sequence,omitempty"`
	PromptTokens           int       `json:"prompt_tokens"`
	GeneratedTokens        int       `json:"generated_tokens"`
	PrefillMS              jsonFloat `json:"prefill_ms"`
	DecodeMS               jsonFloat `json:"decode_ms"`
	PrefillTokensPerSecond jsonFloat `json:"prefill_tokens_per_second"`
	DecodeTokensPerSecond  jsonFloat `json:"decode_tokens_per_second"`
	Seed                   uint64    `json:"seed"`
	Prompt                 string    `json:"prompt"`
	Text                   string    `json:"text"` // the whole generated text
}

// jsonFloat is a number that JSON can always hold: NaN and ±Inf, which
// JSON has no numbers for, are written as null.
type jsonFloat float64

func (f jsonFloat) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(v)
}

func (f *jsonFloat) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = jsonFloat(math.NaN())
		return nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	*f = jsonFloat(v)
	return err
}

func (p *jsonPrinter) start(prompt string) error { p.prompt = prompt; return nil }

// emit writes one object on a line of its own.
func (p *jsonPrinter) emit(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("writing JSON: %w", err)
	}
	_, err = p.w.Write(append(b, '\n'))
	return err
}

func (p *jsonPrinter) step(s decoding.Step) error {
	p.text.WriteString(s.Text)
	if s.ID == decoding.NoToken {
		return nil
	}
	t := tokenJSON{Type: "token", ID: s.ID, Pos: s.Pos, Text: s.Text, Bytes: byteList(s.Piece), LogProb: jsonFloat(s.LogProb)}
	for _, a := range s.TopLogProbs {
		t.TopLogProbs = append(t.TopLogProbs, altJSON{a.ID, strings.ToValidUTF8(a.Text, "\uFFFD"), byteList(a.Text), jsonFloat(a.LogProb)})
	}
	return p.emit(t)
}

func (p *jsonPrinter) end(last decoding.Step, notes []string) error {
	sum := summaryJSON{Type: "summary", FinishReason: string(last.Finish), Stopped: describeFinish(last, p.cfg, p.contextLen),
		Seed: p.cfg.seed, Prompt: p.prompt, Text: p.text.String()}
	if st := last.Stats; st != nil {
		sum.StopSequence = st.StopSequence
		sum.PromptTokens, sum.GeneratedTokens = st.PromptTokens, st.GeneratedTokens
		sum.PrefillMS, sum.DecodeMS = jsonFloat(ms(st.Prefill)), jsonFloat(ms(st.Decode))
		sum.PrefillTokensPerSecond, sum.DecodeTokensPerSecond = jsonFloat(st.PrefillTokensPerSecond()), jsonFloat(st.DecodeTokensPerSecond())
	}
	if err := p.emit(sum); err != nil {
		return err
	}
	if f, ok := p.w.(interface{ Flush() error }); ok {
		if err := f.Flush(); err != nil {
			return err
		}
	}
	for _, n := range notes {
		if _, err := fmt.Fprintln(p.stderr, n); err != nil {
			return err
		}
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// byteList lists the bytes of s as numbers (JSON would turn []byte into
// base64, and a byte-fallback token's lone byte is not valid text).
func byteList(s string) []int {
	out := make([]int, len(s))
	for i := range len(s) {
		out[i] = int(s[i])
	}
	return out
}
