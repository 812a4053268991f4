// Package stopping is exercise 08 of the Token by Token track: deciding when
// a generation ends, and saying why.
//
// Task 1 is the stop-string matcher of a streaming server: text arrives one
// token's piece at a time, a stop string such as "\n\n" or "User:" may be
// split over several pieces, and the reader must never see any part of it.
// Task 2 is the generation loop's stop conditions (end of text, a length
// limit, stop strings, a rule of the caller's, a deadline or a cancellation)
// and the finish reason it reports. Task 3 plugs the loop into a real model.
package stopping

import (
	"slices"
	"strings"
)

// StopMatcher finds stop strings in text that arrives piece by piece.
//
// It keeps back the shortest tail of the text that could still grow into a
// stop string, and releases everything before it. When a stop string is
// complete, it releases the text before it (and the stop string itself if
// include is set) and drops the rest.
type StopMatcher struct {
	stops   []string
	include bool
	held    string // pushed but not yet released
	longest int    // length of the longest stop string
}

// NewStopMatcher returns a matcher for the stop strings stops (none of them
// empty). With include, the released text ends with the stop string that
// ended it; without, it ends just before it.
func NewStopMatcher(stops []string, include bool) *StopMatcher {
	m := &StopMatcher{stops: slices.Clone(stops), include: include}
	for _, s := range stops {
		m.longest = max(m.longest, len(s))
	}
	return m
}

// Push adds the next piece of text and returns the text that is now safe to
// show (out). If the text now contains a complete stop string, it returns
// that string and stopped = true; out then ends at the stop string (or just
// after it, with include), and whatever followed it is dropped. The first
// stop string to start wins; of two that start at the same place, the longer.
func (m *StopMatcher) Push(piece string) (out, stop string, stopped bool) {
	m.held += piece

	// A complete stop string ends the text.
	at := -1
	for _, s := range m.stops {
		i := strings.Index(m.held, s)
		if i < 0 {
			continue
		}
		if at < 0 || i < at || i == at && len(s) > len(stop) {
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

	// Otherwise release everything before the first place where the rest
	// of the text is the beginning of a stop string.
	cut := m.heldFrom()
	out, m.held = m.held[:cut], m.held[cut:]
	return out, "", false
}

// heldFrom returns the first index i such that m.held[i:] is a proper
// prefix of some stop string, or len(m.held) if there is none. Only the
// last longest-1 bytes can qualify: a longer tail cannot be a proper prefix.
func (m *StopMatcher) heldFrom() int {
	for i := max(0, len(m.held)-m.longest+1); i < len(m.held); i++ {
		tail := m.held[i:]
		for _, s := range m.stops {
			if len(tail) < len(s) && strings.HasPrefix(s, tail) {
				return i
			}
		}
	}
	return len(m.held)
}

// Flush returns the text still held back, for when generation has ended and
// nothing more can arrive to complete a stop string. Afterwards nothing is
// held.
func (m *StopMatcher) Flush() string {
	out := m.held
	m.held = ""
	return out
}
