package penalties

// Recent returns the last window tokens of history: what the penalties look
// at when they are limited to the recent text (llama.cpp's penalty_last_n,
// the engine's PenaltyWindow), so that a token used long ago is allowed
// again (Task 4). window ≤ 0, or a window at least as long as history,
// returns all of history. The result may share history's storage.
//
// Example: Recent([1 2 3 4 5], 2) = [4 5].
func Recent(history []int, window int) []int {
	return nil
}

// Penalties holds the settings of all the penalties, with the meaning of the
// engine's Options fields of similar names (Task 4).
type Penalties struct {
	Repetition    float64 // RepetitionPenalty; 0 or 1: off
	Presence      float64 // PresencePenalty; 0: off
	Frequency     float64 // FrequencyPenalty; 0: off
	Window        int     // PenaltyWindow; 0: the whole history
	NoRepeatNGram int     // NoRepeatNGram; 0: off
}

// Apply applies the penalties to logits in place, in the engine's order
// (Task 4):
//
//  1. the repetition penalty (unless Repetition is 0 or 1), on
//     Recent(history, Window);
//  2. the presence and frequency penalties, on Recent(history, Window);
//  3. the no-repeat n-gram ban (unless NoRepeatNGram is 0), on the whole
//     history: the window is about how long a used token stays penalised; a
//     ban is about exact repeats anywhere in the text.
//
// If every logit is -Inf afterwards (the bans forbade every token), put back
// the logits Apply was given, as the engine does: some token must be
// picked, and the model's own favourite is the sensible one.
func (p Penalties) Apply(logits []float32, history []int) {
}
