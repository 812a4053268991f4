package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/gguf"
	"github.com/tokenbytoken/course/engine/internal/cli"
	"github.com/tokenbytoken/course/engine/models"
)

func main() {
	os.Exit(cli.Status("tokenize", os.Stderr, nil, func() error { return run(os.Args[1:], os.Stdout, os.Stderr) }))
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tokenize", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: tokenize [flags] TEXT\n\nPrints the tokens of TEXT, a line each: the id and the text it stands for.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	model := fs.String("model", "default", `whose tokenizer: "default" (the built-in model), "smollm2", a GGUF file, or a llama2.c checkpoint`)
	tokPath := fs.String("tokenizer", "", "a llama2.c model's tokenizer.bin (default: beside the checkpoint)")
	asJSON := fs.Bool("json", false, "print the ids as a JSON array")
	special := fs.Bool("special", true, "read special tokens written in the text (<|im_start|>) as those tokens; false reads them as plain text")
	set, err := cli.Parse(fs, args)
	if err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return cli.Usagef("want one TEXT to tokenize (quote it), got %d arguments", fs.NArg())
	}
	tok, err := load(*model, *tokPath, set["tokenizer"])
	if err != nil {
		return err
	}
	text := fs.Arg(0)
	var ids []int
	if *special {
		ids, err = tok.Encode(text, true, false)
	} else {
		ids, err = tok.EncodeText(text, true, false)
	}
	if err != nil {
		return err
	}
	if *asJSON {
		if ids == nil {
			ids = []int{}
		}
		b, err := json.Marshal(ids)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(stdout, "%s\n", b)
		return err
	}
	var b strings.Builder
	prev := -1
	for _, id := range ids {
		fmt.Fprintf(&b, "%d\t%s\n", id, strconv.Quote(tok.Decode(prev, id)))
		prev = id
	}
	_, err = io.WriteString(stdout, b.String())
	return err
}

// load reads only the tokenizer: a GGUF file's without its weights.
func load(model, tokPath string, tokSet bool) (*engine.Tokenizer, error) {
	if model == "smollm2" {
		p, err := models.SmolLM2Path()
		if err != nil {
			return nil, err
		}
		model = p
	}
	if model != "default" && gguf.HasMagic(model) {
		if tokSet {
			return nil, cli.Usagef("-tokenizer: %s is a GGUF file, which holds its own tokenizer", model)
		}
		f, err := gguf.Open(model)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		tok, err := engine.TokenizerFromGGUF(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", model, err)
		}
		return tok, nil
	}
	if model == "default" {
		if tokSet {
			return nil, cli.Usagef("-tokenizer: the built-in model has its own tokenizer")
		}
		_, tok, err := models.Default()
		return tok, err
	}
	if tokPath == "" {
		tokPath = filepath.Join(filepath.Dir(model), "tokenizer.bin")
	}
	return engine.LoadTokenizer(tokPath, 0)
}
