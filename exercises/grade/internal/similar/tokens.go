package similar

import (
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	pathpkg "path"
	"strconv"
	"strings"
)

// A symbol is a normalised token. Two tokens get the same symbol when a
// renaming or a reformatting could turn one into the other, so the symbols
// of a program are what copying it leaves intact.
//
// Keywords, operators and delimiters are their token.Token, identifiers a
// renaming can change are all token.IDENT, literals are the token.Token of
// their kind. Names no renaming can change (predeclared identifiers, a
// package's members) are a hash of the name with the top bit set, so they
// never equal a token.Token.
type symbol uint64

// item is one normalised token and the line it starts on.
type item struct {
	sym  symbol
	line int32
}

// named returns the symbol of a name that no renaming can change. It is
// FNV-1a, so a name has the same symbol in every process.
func named(s string) symbol {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return symbol(h | 1<<63)
}

// aliases maps predeclared names to the name they alias, so that writing
// byte for uint8 or rune for int32 changes nothing.
var aliases = map[string]string{"byte": "uint8", "rune": "int32"}

// source is one file of a document, parsed as far as it parses (see
// maxParseTokens).
type source struct {
	name string
	src  []byte
	file *ast.File // nil when not even the package clause parses, or not parsed
}

// declaredNames returns every name the files declare anywhere: package-level
// names, parameters, results, fields, locals, labels. A predeclared name or
// an import's name that the code redeclares is an ordinary identifier there,
// which a renaming may change like any other.
func declaredNames(files []source) map[string]bool {
	names := map[string]bool{}
	add := func(id *ast.Ident) {
		if id != nil {
			names[id.Name] = true
		}
	}
	for _, f := range files {
		if f.file == nil {
			continue
		}
		ast.Inspect(f.file, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				if n.Tok == token.DEFINE {
					for _, e := range n.Lhs {
						if id, ok := e.(*ast.Ident); ok {
							add(id)
						}
					}
				}
			case *ast.RangeStmt:
				if n.Tok == token.DEFINE {
					for _, e := range []ast.Expr{n.Key, n.Value} {
						if id, ok := e.(*ast.Ident); ok {
							add(id)
						}
					}
				}
			case *ast.ValueSpec:
				for _, id := range n.Names {
					add(id)
				}
			case *ast.TypeSpec:
				add(n.Name)
			case *ast.FuncDecl:
				add(n.Name)
			case *ast.Field:
				for _, id := range n.Names {
					add(id)
				}
			case *ast.LabeledStmt:
				add(n.Label)
			}
			return true
		})
	}
	return names
}

// importName returns the name under which a file refers to the package
// imported from path: given, if the import names it, or else the last
// element of the path (the one before a major-version suffix such as /v2).
// It returns "" for imports that give no name to refer to: _ and dot
// imports.
func importName(path, given string) string {
	switch given {
	case "_", ".":
		return ""
	case "":
		name := pathpkg.Base(path)
		if isMajorVersion(name) && strings.Contains(path, "/") {
			name = pathpkg.Base(pathpkg.Dir(path))
		}
		return name
	}
	return given
}

// isMajorVersion reports whether s is a path element like v2 or v10.
func isMajorVersion(s string) bool {
	if len(s) < 2 || s[0] != 'v' {
		return false
	}
	for _, c := range s[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// raw is a token as the scanner returns it.
type raw struct {
	tok  token.Token
	lit  string
	line int32
}

// scan returns the tokens of src without comments. The scanner never gives up: text that is not Go
// becomes token.ILLEGAL and scanning goes on, so any file gives tokens, in
// time linear in its size.
func scan(name string, src []byte) []raw {
	fset := token.NewFileSet()
	file := fset.AddFile(name, -1, len(src))
	var s scanner.Scanner
	s.Init(file, src, func(token.Position, string) {}, 0)
	// Go code averages several bytes a token: reserving that many saves most
	// of the copying as the slice grows, in proportion to the input.
	out := make([]raw, 0, len(src)/6)
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		// Only identifiers' and strings' text is needed (strings for import
		// paths); other literals are normalised by kind, and keeping their
		// text would only cost memory.
		if tok != token.IDENT && tok != token.STRING {
			lit = ""
		}
		out = append(out, raw{tok, lit, int32(file.Line(pos))})
	}
	return out
}

// header removes the package clause and the import declarations from ts,
// which are the same in every solution or differ only in how they are
// grouped, and returns the rest and the names of the imports (name →
// path). It reads the imports from the tokens, so it needs no parse tree.
func header(ts []raw) (body []raw, imports map[string]string) {
	imports = map[string]string{}
	body = ts[:0]
	for i := 0; i < len(ts); i++ {
		switch ts[i].tok {
		case token.PACKAGE:
			i++ // the package's name; the semicolon after it goes too
			if i+1 < len(ts) && ts[i+1].tok == token.SEMICOLON {
				i++
			}
			continue
		case token.IMPORT:
			end := importEnd(ts, i)
			given := ""
			for _, t := range ts[i+1 : end+1] {
				switch t.tok {
				case token.IDENT:
					given = t.lit
				case token.PERIOD:
					given = "."
				case token.STRING:
					if p, err := strconv.Unquote(t.lit); err == nil {
						if name := importName(p, given); name != "" {
							imports[name] = p
						}
					}
					given = ""
				}
			}
			i = end
			continue
		}
		body = append(body, ts[i])
	}
	return body, imports
}

// importEnd returns the index of the last token of the import declaration
// that starts at ts[i]: its closing semicolon. A declaration that is not
// closed ends before the next declaration keyword, so a broken import
// cannot hide the code after it.
func importEnd(ts []raw, i int) int {
	depth := 0
	for i++; i < len(ts); i++ {
		switch ts[i].tok {
		case token.LPAREN:
			depth++
		case token.RPAREN:
			depth--
		case token.FUNC, token.TYPE, token.VAR, token.CONST:
			return i - 1
		case token.SEMICOLON:
			if depth <= 0 {
				return i
			}
		}
	}
	return i
}

// closes reports whether t closes a list, so that a comma or semicolon just
// before it is optional: gofmt adds one or not depending on line breaks.
func closes(t token.Token) bool {
	return t == token.RPAREN || t == token.RBRACE || t == token.RBRACK
}

// normalise turns the raw tokens of one file into symbols. imports are the
// file's import names, declared the names the document declares.
func normalise(ts []raw, imports map[string]string, declared map[string]bool) []item {
	out := make([]item, 0, len(ts))
	for i := 0; i < len(ts); i++ {
		t := ts[i]
		var sym symbol
		switch {
		case t.tok == token.SEMICOLON || t.tok == token.COMMA:
			// A separator before a closing bracket, or at the end of the file,
			// is only there because of a line break.
			if i+1 == len(ts) || closes(ts[i+1].tok) {
				continue
			}
			sym = symbol(t.tok)
		case t.tok == token.IDENT:
			var n int
			sym, n = identifier(ts, i, imports, declared)
			i += n - 1
		default:
			// Keywords, operators, and literals, which are all normalised by
			// kind: a renaming leaves literals alone, but a copy that
			// rewords every message should not hide.
			sym = symbol(t.tok)
		}
		out = append(out, item{sym, t.line})
	}
	return out
}

// identifier returns the symbol of the identifier ts[i]: a package member
// (math.Exp) or a predeclared name (len, float64, nil) that the document
// does not redeclare keeps its name, since renaming cannot change it, and
// every other identifier is token.IDENT. It also returns how many raw
// tokens the symbol stands for: 3 for a package member, else 1.
func identifier(ts []raw, i int, imports map[string]string, declared map[string]bool) (symbol, int) {
	name := ts[i].lit
	if name == "_" {
		// The blank identifier cannot be renamed either.
		return named("_"), 1
	}
	if declared[name] {
		return symbol(token.IDENT), 1
	}
	if p := imports[name]; p != "" && i+2 < len(ts) && ts[i+1].tok == token.PERIOD && ts[i+2].tok == token.IDENT {
		return named(p + "." + ts[i+2].lit), 3
	}
	if types.Universe.Lookup(name) != nil {
		if a, ok := aliases[name]; ok {
			name = a
		}
		return named(name), 1
	}
	return symbol(token.IDENT), 1
}

// The limits of the files tokenize parses. The parse tree serves only to
// find redeclared names; a file beyond these limits is built to be
// expensive, not written to be graded, and only its tokens are read. Code
// nests brackets a handful of levels deep and a solution's file runs to a
// few thousand tokens, while the parser's recursion, and the walk of its
// tree, take stack in proportion to how deeply expressions nest, which a
// long enough file can make as deep as it is long.
const (
	maxParseDepth  = 1000
	maxParseTokens = 1 << 16
)

// depth returns how deeply the brackets of ts nest.
func depth(ts []raw) int {
	d, deepest := 0, 0
	for _, t := range ts {
		switch t.tok {
		case token.LPAREN, token.LBRACK, token.LBRACE:
			d++
			deepest = max(deepest, d)
		case token.RPAREN, token.RBRACK, token.RBRACE:
			d--
		}
	}
	return deepest
}

// tokenize scans and parses the files of one document and returns the
// symbols of each, in the order of files.
func tokenize(files []source) [][]item {
	fset := token.NewFileSet()
	bodies := make([][]raw, len(files))
	imports := make([]map[string]string, len(files))
	for i, f := range files {
		bodies[i], imports[i] = header(scan(f.name, f.src))
		if len(bodies[i]) <= maxParseTokens && depth(bodies[i]) <= maxParseDepth {
			// A partial tree is fine: it only tells which names are
			// declared, and the tokens come from the scanner, which reads
			// everything.
			files[i].file, _ = parser.ParseFile(fset, f.name, f.src, parser.SkipObjectResolution)
		}
	}
	declared := declaredNames(files)
	out := make([][]item, len(files))
	for i := range files {
		out[i] = normalise(bodies[i], imports[i], declared)
	}
	return out
}
