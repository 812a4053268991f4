package train

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"

	"github.com/tokenbytoken/course/engine/internal/memory"
	"github.com/tokenbytoken/course/engine/internal/regular"
)

// Source is one file of a corpus.
type Source struct {
	Path string // path relative to the corpus root, with forward slashes
	Text string
}

// Corpus is a set of Go source files split into a training and a
// validation part. The split is by file, decided by a hash of the file's
// path, so it is the same on every machine and does not depend on the
// order in which files are found.
type Corpus struct {
	Root  string
	Train []Source
	Val   []Source
}

// ValEvery sends about one file in ValEvery to the validation set.
const ValEvery = 50

// Bytes returns the total size of the training and the validation text.
func (c *Corpus) Bytes() (train, val int64) {
	for _, s := range c.Train {
		train += int64(len(s.Text))
	}
	for _, s := range c.Val {
		val += int64(len(s.Text))
	}
	return train, val
}

// SourceOptions select the files of a corpus.
type SourceOptions struct {
	// Limit stops reading once this many bytes have been read (0: no limit),
	// for quick runs.
	Limit int64
	// KeepGenerated keeps generated files (those marked "// Code generated
	// ... DO NOT EDIT."). By default they are skipped: in the standard
	// library they are half of all bytes, mostly tables of numbers
	// (instruction tables, Unicode tables, error constants), which would
	// spend a small model's training on memorising hex digits.
	KeepGenerated bool
}

// generatedRE matches the standard marker of a generated Go file.
var generatedRE = regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`)

// IsGenerated reports whether Go source carries the generated-file marker.
func IsGenerated(src []byte) bool { return generatedRE.Match(src) }

// GoSourceRoot returns the directory the models are trained on by default:
// the src directory of the installed Go toolchain, $(go env GOROOT)/src
// (or, without a go command, the GOROOT this program was built with).
func GoSourceRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err == nil {
		if r := strings.TrimSpace(string(out)); r != "" {
			return filepath.Join(r, "src"), nil
		}
	}
	if r := runtime.GOROOT(); r != "" {
		return filepath.Join(r, "src"), nil
	}
	return "", errors.New("cannot find GOROOT (no go command, and none built in); pass -corpus DIR")
}

// LoadGoSource reads every non-test .go file under root (skipping testdata
// directories, which hold test inputs rather than library code, and, unless
// asked, generated files), in lexical path order. It fails with a clear
// message when root cannot be read or holds no Go source.
func LoadGoSource(root string, opts SourceOptions) (*Corpus, error) {
	limit := opts.Limit
	if limit < 0 {
		return nil, fmt.Errorf("corpus: limit %d bytes: must be 0 (no limit) or positive", limit)
	}
	fi, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("corpus: %s is not a directory", root)
	}
	c := &Corpus{Root: root}
	var total, checked int64
	errLimit := errors.New("limit reached")
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		// A named pipe would block the walk forever, a device never end.
		info, err := os.Stat(path)
		if err != nil {
			return err
		}
		if err := regular.Check(path, info); err != nil {
			return err
		}
		if total+info.Size() > checked {
			if err := memory.Check(fmt.Sprintf("a corpus of %d bytes so far", total+info.Size()), total+info.Size()); err != nil {
				return err
			}
			checked = total + info.Size() + corpusCheckEvery
		}
		b, err := regular.ReadFile(path, info.Size()+1<<20)
		if err != nil {
			return err
		}
		if len(b) == 0 || (!opts.KeepGenerated && IsGenerated(b)) {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		s := Source{Path: rel, Text: string(b)}
		if IsValidation(rel) {
			c.Val = append(c.Val, s)
		} else {
			c.Train = append(c.Train, s)
		}
		total += int64(len(b))
		if limit > 0 && total >= limit {
			return errLimit
		}
		return nil
	})
	if err != nil && err != errLimit {
		return nil, fmt.Errorf("corpus %s: %w", root, err)
	}
	if len(c.Train) == 0 {
		return nil, fmt.Errorf("corpus %s: no non-empty, non-test .go files to train on", root)
	}
	if len(c.Val) == 0 {
		// A small corpus may hash no file into the validation set; then the
		// last training file is held out instead.
		if len(c.Train) < 2 {
			return nil, fmt.Errorf("corpus %s: only one Go file; need at least two (one is held out for validation)", root)
		}
		c.Val = c.Train[len(c.Train)-1:]
		c.Train = c.Train[:len(c.Train)-1]
	}
	return c, nil
}

// corpusCheckEvery is how many bytes of corpus are read between two checks
// of the memory available.
const corpusCheckEvery = 64 << 20

// IsValidation reports whether the file at this corpus-relative path
// belongs to the validation set.
func IsValidation(rel string) bool {
	h := fnv.New32a()
	h.Write([]byte(rel))
	return h.Sum32()%ValEvery == 0
}

// Segments cuts Go source into the documents the models train on: a new
// document starts at every top-level function (a line beginning with
// "func "), together with the comment lines right above it. The first
// document holds the file's header (package clause, imports, types...).
// Joined together, the segments give back the text exactly.
//
// Training on function-sized documents, each starting after the
// beginning-of-text token and ending with the end-of-text token, teaches
// the model both how a function starts when the prompt is just "func " and
// where it ends.
func Segments(text string) []string {
	var segs []string
	start := 0         // start of the current segment
	commentStart := -1 // start of the run of comment lines just above, or -1
	for i := 0; i < len(text); {
		end := strings.IndexByte(text[i:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += i + 1
		}
		line := text[i:end]
		switch {
		case strings.HasPrefix(line, "func "):
			cut := i
			if commentStart >= 0 {
				cut = commentStart
			}
			if cut > start {
				segs = append(segs, text[start:cut])
				start = cut
			}
			commentStart = -1
		case strings.HasPrefix(line, "//"):
			if commentStart < 0 {
				commentStart = i
			}
		default:
			commentStart = -1
		}
		i = end
	}
	if start < len(text) {
		segs = append(segs, text[start:])
	}
	return segs
}
