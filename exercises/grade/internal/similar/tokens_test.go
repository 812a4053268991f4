package similar

import (
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// symbols returns the symbols of a one-file document.
func symbols(src string) []symbol {
	items := tokenize([]source{{name: "x.go", src: []byte(src)}})[0]
	out := make([]symbol, len(items))
	for i, it := range items {
		out[i] = it.sym
	}
	return out
}

// docSymbols returns the symbols of a document, its files in name order,
// one after the other.
func docSymbols(files map[string][]byte) []symbol {
	var out []symbol
	for _, items := range tokenize(sources(files)) {
		for _, it := range items {
			out = append(out, it.sym)
		}
	}
	return out
}

func TestSymbolsOfHandWrittenCode(t *testing.T) {
	ident := symbol(token.IDENT)
	tk := func(t token.Token) symbol { return symbol(t) }
	for _, c := range []struct {
		src  string
		want []symbol
	}{
		// The package clause and the imports are left out; a local name is
		// IDENT, a predeclared one keeps its name, a package member is one
		// symbol with the package's path.
		{"package p\nimport \"math\"\nfunc f(x float64) float64 { return math.Exp(x) + float64(len(\"ab\")) }\n", []symbol{
			tk(token.FUNC), ident, tk(token.LPAREN), ident, named("float64"), tk(token.RPAREN), named("float64"), tk(token.LBRACE),
			tk(token.RETURN), named("math.Exp"), tk(token.LPAREN), ident, tk(token.RPAREN), tk(token.ADD),
			named("float64"), tk(token.LPAREN), named("len"), tk(token.LPAREN), tk(token.STRING), tk(token.RPAREN), tk(token.RPAREN),
			tk(token.RBRACE),
		}},
		// Literals are their kind; the blank identifier keeps its name.
		{"package p\nvar _, b = 12, 1.5i\n", []symbol{
			tk(token.VAR), named("_"), tk(token.COMMA), ident, tk(token.ASSIGN), tk(token.INT), tk(token.COMMA), tk(token.IMAG),
		}},
		// A redeclared predeclared name is an ordinary identifier, here and
		// wherever else it occurs.
		{"package p\nfunc f() int { len := 3; return len + cap(nil) }\n", []symbol{
			tk(token.FUNC), ident, tk(token.LPAREN), tk(token.RPAREN), named("int"), tk(token.LBRACE),
			ident, tk(token.DEFINE), tk(token.INT), tk(token.SEMICOLON), tk(token.RETURN), ident, tk(token.ADD),
			named("cap"), tk(token.LPAREN), named("nil"), tk(token.RPAREN), tk(token.RBRACE),
		}},
	} {
		if got := symbols(c.src); !slices.Equal(got, c.want) {
			t.Errorf("symbols of %q:\n got  %v\n want %v", c.src, got, c.want)
		}
	}
}

// TestSymbolsIgnoreWhatCopyingChanges: pairs of programs that differ only
// in what a renaming or a reformatting changes have the same symbols, and
// pairs that differ in what they compute do not.
func TestSymbolsIgnoreWhatCopyingChanges(t *testing.T) {
	const f = "package p\n\nimport \"math\"\n\nfunc sum(xs []float64) float64 {\n\tvar s float64\n\tfor _, x := range xs {\n\t\ts += math.Abs(x)\n\t}\n\treturn s\n}\n"
	for _, c := range []struct {
		why  string
		a, b string
		same bool
	}{
		{"comments and blank lines", f,
			"package p\n// Package p.\nimport \"math\" // for Abs\n\n\n/* sum adds */ func sum(xs []float64) float64 {\n\tvar s float64 // total\n\n\tfor _, x := range xs { s += math.Abs(x) }\n\treturn s\n}\n", true},
		{"every name", f,
			"package q\n\nimport \"math\"\n\nfunc total(values []float64) float64 {\n\tvar acc float64\n\tfor _, v := range values {\n\t\tacc += math.Abs(v)\n\t}\n\treturn acc\n}\n", true},
		{"an import under another name", f,
			"package p\n\nimport m \"math\"\n\nfunc sum(xs []float64) float64 {\n\tvar s float64\n\tfor _, x := range xs {\n\t\ts += m.Abs(x)\n\t}\n\treturn s\n}\n", true},
		{"imports grouped differently", "package p\nimport (\n\t\"math\"\n\t\"strings\"\n)\nvar x = strings.ToUpper(\"a\")\nvar y = math.Pi\n",
			"package p\nimport \"strings\"\nimport \"math\"\nvar x = strings.ToUpper(\"b\")\nvar y = math.Pi\n", true},
		{"the whole function on one line, semicolons written out", f,
			"package p; import \"math\"; func sum(xs []float64) float64 { var s float64; for _, x := range xs { s += math.Abs(x); }; return s; };", true},
		{"a call and a literal spread over lines, with trailing commas",
			"package p\nvar v = f(1, []int{2, 3})\n",
			"package p\nvar v = f(\n\t1,\n\t[]int{\n\t\t2,\n\t\t3,\n\t},\n)\n", true},
		{"byte for uint8", "package p\nvar b []byte\n", "package p\nvar b []uint8\n", true},
		{"a different string and number", "package p\nvar s, n = \"a\", 1\n", "package p\nvar s, n = `other`, 2\n", true},
		{"another package's function", f, strings.Replace(f, "math.Abs", "math.Sqrt", 1), false},
		{"another operator", f, strings.Replace(f, "+=", "-=", 1), false},
		{"another predeclared type", f, strings.Replace(f, "var s float64", "var s float32", 1), false},
		{"an integer for a float", "package p\nvar x = 1\n", "package p\nvar x = 1.0\n", false},
	} {
		same := slices.Equal(symbols(c.a), symbols(c.b))
		if same != c.same {
			t.Errorf("%s: same symbols = %v; want %v\n%s\n---\n%s", c.why, same, c.same, c.a, c.b)
		}
	}
}

// TestSymbolsOfTheReferenceSolutionsSurviveRenamingAndLayout: for every
// exercise, renaming every local name, reprinting without comments, and
// writing every file on one line leave the symbols exactly as they were.
func TestSymbolsOfTheReferenceSolutionsSurviveRenamingAndLayout(t *testing.T) {
	for _, ex := range exerciseNames(t) {
		sol := loadGo(t, filepath.Join(root, "solutions", ex), false)
		want := docSymbols(sol)
		p := parsePkg(t, sol)
		p.rename(nil)
		renamed := p.print(t)
		for what, files := range map[string]map[string][]byte{
			"renamed":           renamed,
			"on one line":       minify(t, sol),
			"renamed, one line": minify(t, renamed),
		} {
			if got := docSymbols(files); !slices.Equal(got, want) {
				t.Errorf("%s %s: %d symbols differ from the original's %d", ex, what, len(got), len(want))
			}
		}
		if slices.Equal(sol["quiz.go"], renamed["quiz.go"]) {
			t.Errorf("%s: printing without comments left quiz.go unchanged", ex)
		}
	}
}

func TestImportNames(t *testing.T) {
	src := "package p\nimport (\n\t\"math/rand/v2\"\n\tstr \"strings\"\n\t_ \"embed\"\n\t. \"fmt\"\n\t\"unicode/utf8\"\n)\nvar a = rand.IntN(2)\nvar b = str.ToUpper(\"x\")\nvar c = utf8.RuneLen('x')\n"
	got := symbols(src)
	for _, want := range []string{"math/rand/v2.IntN", "strings.ToUpper", "unicode/utf8.RuneLen"} {
		if !slices.Contains(got, named(want)) {
			t.Errorf("symbols of %q lack %s", src, want)
		}
	}
	// Imports are read from the tokens: a file too deeply nested to parse
	// still has them.
	deep := "package p\nimport \"math\"\nvar x = " + strings.Repeat("(", maxParseDepth+1) + "math.Pi" + strings.Repeat(")", maxParseDepth+1) + "\n"
	if !slices.Contains(symbols(deep), named("math.Pi")) {
		t.Errorf("symbols of a file nested %d deep lack math.Pi", maxParseDepth+1)
	}
}

// TestLines: each symbol carries the line its token starts on, and a
// package member the line of the package's name.
func TestLines(t *testing.T) {
	src := "package p\n\nimport \"math\"\n\n// f\nfunc f() float64 {\n\treturn math.\n\t\tPi\n}\n"
	items := tokenize([]source{{name: "x.go", src: []byte(src)}})[0]
	var lines []int32
	for _, it := range items {
		lines = append(lines, it.line)
	}
	// func f ( ) float64 { on line 6; return math.Pi on 7; } on 9.
	want := []int32{6, 6, 6, 6, 6, 6, 7, 7, 9}
	if !slices.Equal(lines, want) {
		t.Errorf("lines of the symbols of %q = %v; want %v", src, lines, want)
	}
}

// TestBrokenFilesStillScan: text that does not parse, or is not Go at all,
// gives symbols rather than an error or a panic, and a broken import does
// not hide what follows it.
func TestBrokenFilesStillScan(t *testing.T) {
	count := func(syms []symbol, s symbol) int {
		n := 0
		for _, x := range syms {
			if x == s {
				n++
			}
		}
		return n
	}
	for _, c := range []struct {
		src  string
		sym  symbol // a symbol the result must hold, n times
		n    int
		want string
	}{
		{"", symbol(token.IDENT), 0, "no symbols at all"},
		{"package", symbol(token.IDENT), 0, "no symbols at all"},
		{"package p\nfunc f( {\n\treturn 1 +\n", symbol(token.RETURN), 1, "the return"},
		{"package p\nimport (\n\t\"math\"\nfunc f() float64 { return math.Pi }\n", named("float64"), 1, "the function after the broken import"},
		{"\x00\xff\xfe binary \x00 junk", symbol(token.IDENT), 2, "the words between the junk"},
		{"package p\nvar s = \"unterminated\nvar t = `also", symbol(token.VAR), 2, "both declarations"},
		{"package p\n" + strings.Repeat("(", 100000), symbol(token.LPAREN), 100000, "every parenthesis"},
		{"package p\nfunc f() { x := '\\q'; y := 0x; z := 1e; _ = \"\\xZZ\" }", symbol(token.DEFINE), 3, "the three definitions"},
	} {
		got := symbols(c.src)
		if c.n == 0 && len(got) != 0 || count(got, c.sym) != c.n {
			t.Errorf("symbols of %.40q = %.20v…; want %s", c.src, got, c.want)
		}
	}
}
