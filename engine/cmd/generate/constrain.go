package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/tokenbytoken/course/engine/constrain"
	"github.com/tokenbytoken/course/engine/internal/cli"
)

// Structured output: -json-schema FILE, -regex RE and -grammar FILE limit
// the text to a language (decoding.Options.Constraint). The language is
// compiled before the model is loaded, so a broken one costs nothing and
// is a usage error (status 2) that says where it is broken.

// checkLanguage refuses more than one language, and a language with the
// decoders that cannot apply it.
func (cfg *config) checkLanguage() error {
	var given []string
	for _, f := range []string{"json-schema", "regex", "grammar"} {
		if cfg.isSet(f) {
			given = append(given, "-"+f)
		}
	}
	switch {
	case len(given) == 0:
		return nil
	case len(given) > 1:
		return cli.Usagef("%s and %s do not go together: the text follows one language", given[0], given[1])
	}
	if cfg.isSet("json-schema") && cfg.jsonSchema == "" || cfg.isSet("grammar") && cfg.grammar == "" {
		return cli.Usagef("%s is empty: give the file", given[0])
	}
	if cfg.beam != 0 {
		return cli.Usagef("%s with -beam: beam search keeps the likeliest continuations by the model's own log-probabilities, and cannot apply a constraint", given[0])
	}
	if cfg.draft != "" || cfg.speculate != 0 {
		return cli.Usagef("%s with speculative decoding: it samples the model's whole distribution, and cannot apply a constraint", given[0])
	}
	return nil
}

// languageFlag names the language's flag and value, for messages.
func (cfg *config) languageFlag() string {
	switch {
	case cfg.jsonSchema != "":
		return "-json-schema " + cfg.jsonSchema
	case cfg.grammar != "":
		return "-grammar " + cfg.grammar
	}
	return fmt.Sprintf("-regex %q", cfg.regex)
}

// language compiles the language the flags give, or returns nil when none
// is given. A file that cannot be read is an error (status 1); a source
// that does not compile is a usage error naming the flag, the file and
// the position.
func (cfg *config) language() (*constrain.Grammar, error) {
	var g *constrain.Grammar
	var err error
	switch {
	case cfg.jsonSchema != "":
		var b []byte
		if b, err = os.ReadFile(cfg.jsonSchema); err != nil {
			return nil, fmt.Errorf("-json-schema: %w", err)
		}
		g, err = constrain.JSONSchema(b)
	case cfg.grammar != "":
		var b []byte
		if b, err = os.ReadFile(cfg.grammar); err != nil {
			return nil, fmt.Errorf("-grammar: %w", err)
		}
		g, err = constrain.ParseGrammar(string(b))
	case cfg.isSet("regex"):
		g, err = constrain.Regexp(cfg.regex)
	default:
		return nil, nil
	}
	if err != nil {
		var se *constrain.SyntaxError
		if errors.As(err, &se) {
			return nil, cli.Usagef("%s: line %d, column %d: %s", cfg.languageFlag(), se.Line, se.Column, se.Msg)
		}
		return nil, cli.Usagef("%s: %v", cfg.languageFlag(), err)
	}
	return g, nil
}

// sameDestination reports whether w1 and w2 may end up in the same place,
// such as one terminal or one pipe: everything but two files known to be
// different.
func sameDestination(w1, w2 io.Writer) bool {
	f1, ok1 := w1.(*os.File)
	f2, ok2 := w2.(*os.File)
	if !ok1 || !ok2 {
		return true
	}
	s1, err1 := f1.Stat()
	s2, err2 := f2.Stat()
	return err1 != nil || err2 != nil || os.SameFile(s1, s2)
}
