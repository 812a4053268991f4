package decoding

import "strings"

// StopMatcher finds stop sequences in streamed text. Text arrives a token at
// a time, and a stop sequence such as "\n\n" or "User:" can straddle token
// boundaries, so the matcher holds back any tail of the text that could
// still grow into a stop sequence and releases it only once it cannot. A
// reader therefore never sees part of a stop sequence that later turns out
// to end the text.
type StopMatcher struct {
	stops   []string
	include bool
	held    string
}

// NewStopMatcher returns a matcher for the given stop sequences (none of
// them may be empty). With include, the released text keeps the stop
// sequence that ended it; otherwise it ends just before it.
func NewStopMatcher(stops []string, include bool) *StopMatcher {
	return &StopMatcher{stops: stops, include: include}
}

// Push adds the next piece of text. It returns the text that is now safe to
// release and, if a stop sequence is complete, which one; the text after a
// stop sequence is discarded and the matcher must not be pushed again.
// Among stop sequences that complete in the same piece, the one that starts
// first wins.
func (m *StopMatcher) Push(piece string) (out, stop string, stopped bool) {
	if len(m.stops) == 0 {
		return piece, "", false // nothing to hold back, ever
	}
	m.held += piece
	at := -1
	for _, s := range m.stops {
		if i := strings.Index(m.held, s); i >= 0 && (at < 0 || i < at || i == at && len(s) > len(stop)) {
			at, stop = i, s
		}
	}
	if at >= 0 {
		end := at
		if m.include {
			end += len(stop)
		}
		out, m.held = m.held[:end], ""
		return out, stop, true
	}
	keep := m.partialStart()
	out, m.held = m.held[:keep], m.held[keep:]
	return out, "", false
}

// partialStart returns where the longest tail of the held text that is a
// proper prefix of some stop sequence begins (len(held) if there is none).
func (m *StopMatcher) partialStart() int {
	for i := range len(m.held) {
		tail := m.held[i:]
		for _, s := range m.stops {
			if len(tail) < len(s) && strings.HasPrefix(s, tail) {
				return i
			}
		}
	}
	return len(m.held)
}

// Flush returns the held-back text at the end of generation, when no more
// text can arrive to complete a stop sequence.
func (m *StopMatcher) Flush() string {
	out := m.held
	m.held = ""
	return out
}
