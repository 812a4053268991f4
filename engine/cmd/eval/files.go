package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/tokenbytoken/course/engine"
	"github.com/tokenbytoken/course/engine/internal/regular"
	"github.com/tokenbytoken/course/engine/train"
)

// expand turns the command line's files and directories into a list of
// files: a directory stands for every .go file below it, in path order.
func expand(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		info, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			out = append(out, a)
			continue
		}
		var found []string
		err = filepath.WalkDir(a, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(path, ".go") {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s holds no .go files", a)
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

// evalFiles scores each file and prints a line per file and the total,
// each beside gzip -9 on the same bytes. Empty files are skipped.
func evalFiles(m *engine.Model, tok *engine.Tokenizer, paths []string, w io.Writer) error {
	fmt.Fprintf(w, "model: %s (%s, %d parameters)\n\n", m.Name, m.Config, m.Config.NumParams())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "bytes\ttokens\tnats/token\tbits/byte\tgzip -9 bits/byte\t  file")
	var total train.EvalResult
	var gzBits float64
	files, wins := 0, 0
	for _, p := range paths {
		text, err := regular.ReadFile(p, maxTextBytes)
		if err != nil {
			return err
		}
		if len(text) == 0 {
			continue
		}
		r, err := train.Evaluate(m, tok, string(text))
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		gz, err := gzipBits(text)
		if err != nil {
			return err
		}
		files++
		if r.BitsPerByte() < gz/float64(len(text)) {
			wins++
		}
		total.Bytes += r.Bytes
		total.Tokens += r.Tokens
		total.Nats += r.Nats
		gzBits += gz
		fmt.Fprintf(tw, "%d\t%d\t%.4f\t%.4f\t%.4f\t%s\n", r.Bytes, r.Tokens, r.NatsPerToken(), r.BitsPerByte(), gz/float64(len(text)), "  "+p)
	}
	if files == 0 {
		return fmt.Errorf("all %d files are empty: nothing to evaluate", len(paths))
	}
	fmt.Fprintf(tw, "%d\t%d\t%.4f\t%.4f\t%.4f\t  total (%d files)\n", total.Bytes, total.Tokens, total.NatsPerToken(), total.BitsPerByte(), gzBits/float64(total.Bytes), files)
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nthe model needs fewer bits than gzip -9 on %d of %d files (perplexity over all: %.2f)\n", wins, files, math.Exp(total.NatsPerToken()))
	return nil
}

// gzipBits is the size in bits of text compressed by gzip at its best
// compression.
func gzipBits(text []byte) (float64, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return 0, err
	}
	if _, err := zw.Write(text); err != nil {
		return 0, err
	}
	if err := zw.Close(); err != nil {
		return 0, err
	}
	return 8 * float64(buf.Len()), nil
}
