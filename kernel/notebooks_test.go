// Package kernel holds the tooling around the course notebooks: the install
// script, the headless runner and the browser test (see kernel/README.md). Its Go
// test checks that the notebooks in notebooks/ are fit to commit.
package kernel

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// useCourseCell is the first code cell of every notebook: it points the
// cell's Go module at this repository (see notebooks/01-*.ipynb).
const useCourseCell = "!*go mod edit -replace github.com/tokenbytoken/course=${GONB_DIR}/.. && go mod edit -require github.com/tokenbytoken/course@v0.0.0"

type notebookFile struct {
	NBFormat int `json:"nbformat"`
	Metadata struct {
		KernelSpec struct {
			Name string `json:"name"`
		} `json:"kernelspec"`
	} `json:"metadata"`
	Cells []struct {
		ID             string            `json:"id"`
		CellType       string            `json:"cell_type"`
		Source         json.RawMessage   `json:"source"`
		Outputs        []json.RawMessage `json:"outputs"`
		ExecutionCount *int              `json:"execution_count"`
		Metadata       map[string]any    `json:"metadata"`
	} `json:"cells"`
}

// source joins a cell's source, stored as one string or a list of lines.
func source(t *testing.T, raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var lines []string
	if err := json.Unmarshal(raw, &lines); err != nil {
		t.Fatalf("cell source is neither a string nor a list of strings: %s", raw)
	}
	return strings.Join(lines, "")
}

func TestNotebooksAreCleanAndSelfContained(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "notebooks", "*.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no notebooks in notebooks/")
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var nb notebookFile
			if err := json.Unmarshal(data, &nb); err != nil {
				t.Fatalf("not a notebook: %v", err)
			}
			if nb.NBFormat != 4 {
				t.Errorf("nbformat %d, want 4", nb.NBFormat)
			}
			if nb.Metadata.KernelSpec.Name != "gonb" {
				t.Errorf("kernel %q, want gonb (the kernel make install registers)", nb.Metadata.KernelSpec.Name)
			}
			ids := map[string]bool{}
			firstCode := true
			for i, cell := range nb.Cells {
				src := source(t, cell.Source)
				if strings.TrimSpace(src) == "" {
					t.Errorf("cell %d is empty", i)
				}
				if cell.ID == "" || ids[cell.ID] {
					t.Errorf("cell %d: id %q missing or repeated", i, cell.ID)
				}
				ids[cell.ID] = true
				// The notebooks travel without the workspace around the
				// repository: nothing outside it may be referenced.
				if strings.Contains(src, "shared/") {
					t.Errorf("cell %d refers to a shared/ folder outside the repository", i)
				}
				if cell.CellType != "code" {
					continue
				}
				_, timed := cell.Metadata["execution"]
				if len(cell.Outputs) > 0 || cell.ExecutionCount != nil || timed {
					t.Errorf("cell %d has outputs, an execution count or timings: commit notebooks cleared (make clear-outputs)", i)
				}
				if firstCode && strings.TrimSpace(src) != useCourseCell {
					t.Errorf("first code cell is %q, want %q", src, useCourseCell)
				}
				firstCode = false
			}
			if firstCode {
				t.Error("no code cells")
			}
		})
	}
}

// TestNotebookMetadataIsWhatJupyterLabWrites: JupyterLab, once the GoNB
// kernel has answered, copies the kernel's language_info into the notebook,
// and marks it modified if that changes anything; saving then writes it.
// The committed notebooks carry exactly that metadata (found by opening and
// saving them in JupyterLab 4.6 with GoNB; the browser test does it again
// for every notebook), so a learner who opens and saves one sees no change
// in git status. GoNB's language_info.version is the Go release it was
// built with, which kernel/install.sh pins as GONB_GO.
func TestNotebookMetadataIsWhatJupyterLabWrites(t *testing.T) {
	install, err := os.ReadFile("install.sh")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^GONB_GO=(go[0-9.]+)$`).FindSubmatch(install)
	if m == nil {
		t.Fatal("kernel/install.sh does not pin GONB_GO=go1.N.M")
	}
	want := map[string]any{
		"kernelspec": map[string]any{"display_name": "Go (GoNB)", "language": "go", "name": "gonb"},
		"language_info": map[string]any{
			"codemirror_mode": "", "file_extension": ".go", "mimetype": "text/x-go", "name": "go",
			"nbconvert_exporter": "", "pygments_lexer": "", "version": string(m[1]),
		},
	}
	paths, err := filepath.Glob(filepath.Join("..", "notebooks", "*.ipynb"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no notebooks: %v", err)
	}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var nb struct {
			Metadata      map[string]any `json:"metadata"`
			NBFormatMinor int            `json:"nbformat_minor"`
		}
		if err := json.Unmarshal(data, &nb); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if !reflect.DeepEqual(nb.Metadata, want) {
			got, _ := json.Marshal(nb.Metadata)
			exp, _ := json.Marshal(want)
			t.Errorf("%s: metadata\n %s\nwant what JupyterLab writes on save (make clear-outputs writes it)\n %s", filepath.Base(path), got, exp)
		}
		if nb.NBFormatMinor != 5 {
			t.Errorf("%s: nbformat_minor %d; JupyterLab 4.6 writes 4.5", filepath.Base(path), nb.NBFormatMinor)
		}
		// nbformat's layout, which JupyterLab's server writes: one-space
		// indents, keys sorted, non-ASCII as is, a final newline.
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		var layout bytes.Buffer
		enc := json.NewEncoder(&layout)
		enc.SetIndent("", " ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(layout.Bytes(), data) {
			t.Errorf("%s: not in the layout JupyterLab saves (one-space indent, sorted keys, final newline): run make clear-outputs", filepath.Base(path))
		}
	}
}

// maxCodeLines is the longest a notebook's code cell may be: a cell reads as
// one experiment, and the plumbing behind it lives in engine/experiment
// (measurements) and engine/notebook (charts).
const maxCodeLines = 25

// TestNotebookCellsReadAsTheExperiment: every code cell is at most
// maxCodeLines lines, and two code cells never follow each other without a
// Markdown cell between them that says why the second one runs.
func TestNotebookCellsReadAsTheExperiment(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "notebooks", "*.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var nb notebookFile
			if err := json.Unmarshal(data, &nb); err != nil {
				t.Fatalf("not a notebook: %v", err)
			}
			previous := ""
			for i, cell := range nb.Cells {
				if cell.CellType == "code" {
					src := strings.TrimRight(source(t, cell.Source), "\n")
					if n := strings.Count(src, "\n") + 1; n > maxCodeLines {
						t.Errorf("code cell %d (%s) is %d lines; at most %d: move its plumbing into engine/experiment or engine/notebook", i, cell.ID, n, maxCodeLines)
					}
					if previous == "code" {
						t.Errorf("code cell %d (%s) follows a code cell: put a sentence of why between them", i, cell.ID)
					}
				}
				previous = cell.CellType
			}
		})
	}
}
