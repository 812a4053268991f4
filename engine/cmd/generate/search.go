package main

import "fmt"

// searchDecoder returns the decoder for the search and speed flags (-beam,
// -draft, -speculate, -no-cache), or nil when none is set and the ordinary
// sampling loop runs. An error means the flags cannot be used as given and
// is reported as flag misuse (exit status 2).
//
// This build has no search or speed decoders, so every one of those flags
// is refused by name.
func searchDecoder(cfg *config) (decoder, error) {
	switch {
	case cfg.beam != 0:
		return nil, fmt.Errorf("-beam = %d: beam search is not available in this build", cfg.beam)
	case cfg.draft != "":
		return nil, fmt.Errorf("-draft = %q: speculative decoding is not available in this build", cfg.draft)
	case cfg.speculate != 0:
		return nil, fmt.Errorf("-speculate = %d: speculative decoding is not available in this build", cfg.speculate)
	case cfg.noCache:
		return nil, fmt.Errorf("-no-cache: decoding without the KV cache is not available in this build")
	}
	return nil, nil
}
