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

// StopMatcher finds stop strings in text that arrives piece by piece. Task 1.
//
// Add the fields you need: the stop strings, the include flag, and the text
// pushed but not yet released (the "held back" text).
type StopMatcher struct {
}

// NewStopMatcher returns a matcher for the stop strings stops. None of them
// is empty (the caller checks). With include, the text released at the end
// keeps the stop string that ended it; without, it ends just before it. Task 1.
func NewStopMatcher(stops []string, include bool) *StopMatcher {
	return nil
}

// Push adds the next piece of text (possibly empty) and returns what may be
// shown to the reader now. Task 1.
//
// Think of the text held back so far followed by piece:
//
//   - If it contains a complete stop string, return stopped = true, that
//     stop string, and as out the text before it (with include: the text up
//     to and including it). Everything after the stop string is dropped and
//     nothing stays held. If several stop strings are complete, the one
//     that starts first wins; of two that start at the same byte, the
//     longer one.
//   - Otherwise find the first position from which the rest of the text is
//     the beginning of some stop string, but not all of it (a proper prefix:
//     it could still grow into that stop string). Hold back the text from
//     there on and return everything before it as out. If no such position
//     exists, hold nothing back. Hold back no more than that: text that can
//     no longer become a stop string is released at once.
//
// Example with the stop string "User:": Push("Hi\nUs") returns "Hi\n" and
// holds "Us"; Push("ed") returns "Used" (it cannot become "User:" any more);
// Push(" Use") returns " " and holds "Use"; Push("r: bye") returns "",
// "User:", true.
//
// After a stop, the matcher is not pushed again.
func (m *StopMatcher) Push(piece string) (out, stop string, stopped bool) {
	return "", "", false
}

// Flush returns the text still held back, for when generation ends for
// another reason and nothing more can arrive to complete a stop string.
// Afterwards nothing is held: a second Flush returns "". Task 1.
func (m *StopMatcher) Flush() string {
	return ""
}
