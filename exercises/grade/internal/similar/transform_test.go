package similar

// The transformations a learner might apply to disguise a copy, done on the
// syntax tree so that the result is still the same program: every local
// name renamed, comments dropped, the layout changed, independent
// statements swapped, declarations reordered, files merged.

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// root is the repository's root, from this package's folder.
var root = filepath.Join("..", "..", "..", "..")

// loadGo returns the .go files of dir, the test files only if tests is true
// and the others only if it is false (file name → source).
func loadGo(t testing.TB, dir string, tests bool) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") != tests {
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = src
	}
	if len(files) == 0 {
		t.Fatalf("no .go files (tests %v) in %s", tests, dir)
	}
	return files
}

// exerciseNames returns the names of the exercise folders, 01-the-loop …
func exerciseNames(t testing.TB) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, "solutions"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() && len(e.Name()) > 3 && e.Name()[2] == '-' {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		t.Fatal("no exercises in solutions/")
	}
	return names
}

// importNames maps the names under which f refers to the packages it
// imports to their paths.
func importNames(f *ast.File) map[string]string {
	m := map[string]string{}
	for _, spec := range f.Imports {
		p, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			continue
		}
		given := ""
		if spec.Name != nil {
			given = spec.Name.Name
		}
		if name := importName(p, given); name != "" {
			m[name] = p
		}
	}
	return m
}

// pkg is a package's files parsed without their comments.
type pkg struct {
	fset  *token.FileSet
	files map[string]*ast.File
}

func parsePkg(t testing.TB, files map[string][]byte) pkg {
	t.Helper()
	p := pkg{token.NewFileSet(), map[string]*ast.File{}}
	for name, src := range files {
		f, err := parser.ParseFile(p.fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		p.files[name] = f
	}
	return p
}

// sortedNames returns the keys of m in order.
func sortedNames[V any](m map[string]V) []string {
	var names []string
	for name := range m {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// print formats the files as gofmt would (no comments are left to print).
func (p pkg) print(t testing.TB) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for name, f := range p.files {
		var b bytes.Buffer
		if err := format.Node(&b, p.fset, f); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = b.Bytes()
	}
	return out
}

// rename gives every name the package declares a new one, consistently
// across its files, except exported names (the exercise's API), the
// package-level names, fields and methods in keep (which the exercise's
// tests use), and blank, init and main.
func (p pkg) rename(keep map[string]bool) {
	outer := p.outerNames()
	imports := map[string]bool{}
	used := map[string]bool{}
	for _, f := range p.files {
		for name := range importNames(f) {
			imports[name] = true
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				used[id.Name] = true
			}
			return true
		})
	}
	var srcs []source
	for _, name := range sortedNames(p.files) {
		srcs = append(srcs, source{name: name, file: p.files[name]})
	}
	names := map[string]string{}
	for _, name := range sortedNames(declaredNames(srcs)) {
		if ast.IsExported(name) || keep[name] && outer[name] || imports[name] || name == "_" || name == "init" || name == "main" {
			continue
		}
		fresh := ""
		for i := len(names); fresh == "" || used[fresh]; i++ {
			fresh = fmt.Sprintf("r%d", i)
		}
		used[fresh] = true
		names[name] = fresh
	}
	for _, f := range p.files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				// A package's member keeps its name; a field or method of
				// one of our types is renamed like its declaration.
				if x, ok := n.X.(*ast.Ident); ok && imports[x.Name] && names[x.Name] == "" {
					return false
				}
			case *ast.Ident:
				if nw := names[n.Name]; nw != "" {
					n.Name = nw
				}
			}
			return true
		})
	}
}

// outerNames returns the names the package declares outside functions:
// package-level names, fields and methods.
func (p pkg) outerNames() map[string]bool {
	names := map[string]bool{}
	for _, f := range p.files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				names[d.Name.Name] = true
			case *ast.GenDecl:
				ast.Inspect(d, func(n ast.Node) bool {
					switch n := n.(type) {
					case *ast.Ident:
						names[n.Name] = true
					case *ast.FuncLit:
						return false
					}
					return true
				})
			}
		}
	}
	return names
}

// reorderDecls reverses the order of each file's declarations, after its
// imports.
func (p pkg) reorderDecls() {
	for _, f := range p.files {
		var imports, rest []ast.Decl
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
				imports = append(imports, d)
			} else {
				rest = append(rest, d)
			}
		}
		slices.Reverse(rest)
		f.Decls = append(imports, rest...)
	}
}

// merge returns the package as one file, all.go: every import once, then
// the declarations of the files in reverse order of their names.
func (p pkg) merge(t testing.TB) map[string][]byte {
	t.Helper()
	var b bytes.Buffer
	names := sortedNames(p.files)
	fmt.Fprintf(&b, "package %s\n\nimport (\n", p.files[names[0]].Name.Name)
	seen := map[string]bool{}
	for _, name := range names {
		for _, spec := range p.files[name].Imports {
			s := spec.Path.Value
			if spec.Name != nil {
				s = spec.Name.Name + " " + s
			}
			if !seen[s] {
				seen[s] = true
				fmt.Fprintf(&b, "\t%s\n", s)
			}
		}
	}
	b.WriteString(")\n")
	slices.Reverse(names)
	for _, name := range names {
		for _, d := range p.files[name].Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
				continue
			}
			b.WriteString("\n")
			if err := format.Node(&b, p.fset, d); err != nil {
				t.Fatal(err)
			}
			b.WriteString("\n")
		}
	}
	src, err := format.Source(b.Bytes())
	if err != nil {
		t.Fatalf("merged files do not parse: %v\n%s", err, b.Bytes())
	}
	return map[string][]byte{"all.go": src}
}

// pureCalls are the functions an assignment may call and still be moved
// past a neighbour: they read their arguments and change nothing.
var pureCalls = map[string]bool{
	"len": true, "cap": true, "make": true, "min": true, "max": true, "new": true,
	"float64": true, "float32": true, "int": true, "int32": true, "int64": true, "uint64": true, "uint32": true,
}

// movable reports whether s is an assignment, declaration or increment that
// calls nothing but pureCalls and members of the packages in pure, and if so
// the names it writes and reads (the written ones among them).
func movable(s ast.Stmt, pure map[string]bool) (writes, reads map[string]bool, ok bool) {
	writes, reads = map[string]bool{}, map[string]bool{}
	var lhs []ast.Expr
	switch s := s.(type) {
	case *ast.AssignStmt:
		lhs = s.Lhs
	case *ast.IncDecStmt:
		lhs = []ast.Expr{s.X}
	case *ast.DeclStmt:
		g := s.Decl.(*ast.GenDecl)
		if g.Tok != token.VAR {
			return nil, nil, false
		}
		for _, spec := range g.Specs {
			for _, id := range spec.(*ast.ValueSpec).Names {
				lhs = append(lhs, id)
			}
		}
	default:
		return nil, nil, false
	}
	for _, e := range lhs {
		// The variable a write changes: x in x, x[i], x.f, *x.
		for {
			switch x := e.(type) {
			case *ast.IndexExpr:
				e = x.X
				continue
			case *ast.SelectorExpr:
				e = x.X
				continue
			case *ast.StarExpr:
				e = x.X
				continue
			case *ast.ParenExpr:
				e = x.X
				continue
			}
			break
		}
		if id, isID := e.(*ast.Ident); isID {
			writes[id.Name] = true
		} else {
			return nil, nil, false
		}
	}
	ok = true
	ast.Inspect(s, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			reads[n.Name] = true
		case *ast.FuncLit:
			ok = false
		case *ast.CallExpr:
			switch fn := n.Fun.(type) {
			case *ast.Ident:
				ok = ok && pureCalls[fn.Name]
			case *ast.SelectorExpr:
				x, isID := fn.X.(*ast.Ident)
				ok = ok && isID && pure[x.Name]
			default:
				ok = false
			}
		}
		return true
	})
	return writes, reads, ok
}

// reorderStatements swaps neighbouring statements of every block when
// neither touches what the other writes and neither calls anything that
// could have an effect, and reports how many pairs it swapped.
func (p pkg) reorderStatements() int {
	swapped := 0
	for _, f := range p.files {
		pure := map[string]bool{}
		for name, path := range importNames(f) {
			if path == "math" || path == "strings" || path == "strconv" || path == "slices" || path == "unicode/utf8" {
				pure[name] = true
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			b, ok := n.(*ast.BlockStmt)
			if !ok {
				return true
			}
			for i := 0; i+1 < len(b.List); i++ {
				w1, r1, ok1 := movable(b.List[i], pure)
				w2, r2, ok2 := movable(b.List[i+1], pure)
				if !ok1 || !ok2 || overlap(w1, r2) || overlap(w2, r1) {
					continue
				}
				b.List[i], b.List[i+1] = b.List[i+1], b.List[i]
				swapped++
				i++ // each statement moves once
			}
			return true
		})
	}
	return swapped
}

func overlap(a, b map[string]bool) bool {
	for name := range a {
		if b[name] {
			return true
		}
	}
	return false
}

// minify writes every file with all its tokens on one line, the
// semicolons Go's line breaks stand for written out: the same program, in
// a layout nobody would choose.
func minify(t testing.TB, files map[string][]byte) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for name, src := range files {
		fset := token.NewFileSet()
		var s scanner.Scanner
		s.Init(fset.AddFile(name, -1, len(src)), src, func(pos token.Position, msg string) { t.Fatalf("%s: %s", pos, msg) }, 0)
		var b bytes.Buffer
		for {
			_, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			switch {
			case tok == token.SEMICOLON:
				b.WriteString(";")
			case lit != "":
				b.WriteString(lit)
			default:
				b.WriteString(tok.String())
			}
			b.WriteByte(' ')
		}
		out[name] = b.Bytes()
	}
	return out
}

// keepNames returns every identifier in the exercise's test files: a copy
// that is to pass the tests keeps these names.
func keepNames(t testing.TB, exercise string) map[string]bool {
	t.Helper()
	keep := map[string]bool{}
	fset := token.NewFileSet()
	for name, src := range loadGo(t, filepath.Join(root, "exercises", exercise), true) {
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				keep[id.Name] = true
			}
			return true
		})
	}
	return keep
}

// disguise applies every transformation to a package's files: names,
// comments, statement and declaration order, files merged into one, and
// the layout squashed onto one line per file.
func disguise(t testing.TB, exercise string, files map[string][]byte) map[string][]byte {
	t.Helper()
	p := parsePkg(t, files)
	p.rename(keepNames(t, exercise))
	p.reorderStatements()
	p.reorderDecls()
	return minify(t, p.merge(t))
}

// withStubs returns the stub files of exercise with files put in their
// place: a learner's folder, which keeps the stubs they did not change.
func withStubs(stubs, files map[string][]byte) map[string][]byte {
	out := map[string][]byte{}
	for name, src := range stubs {
		out[name] = src
	}
	for name, src := range files {
		out[name] = src
	}
	return out
}
