package main

import (
	"context"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strings"
	"sync"
)

// Go is memory-safe only for programs without data races, and a race needs
// two goroutines. checkSource refuses the go statement and the functions
// that plainly start a goroutine; but the standard library also starts
// goroutines of its own that call code handed to it, and whether a piece of
// code hands it some is a question of types, not of syntax. A context of
// graded code's own, given to context.WithCancel, has its methods called
// from a goroutine that the context package starts, with or without a go
// statement in sight. So once the learner's files compile on their own,
// checkGoroutines type-checks them and refuses every way, among the allowed
// imports, to get graded code run on a goroutine the tests did not start:
//
//   - time.AfterFunc and context.AfterFunc, however they are reached (a
//     call, a function value, a renamed import);
//   - sync.WaitGroup, whose Go method starts a goroutine: a type that has
//     it, in an interface value, would call it out of sight;
//   - iter.Pull and iter.Pull2, which run the iterator on a goroutine of
//     its own (a coroutine);
//   - any type of graded code's own that is a context.Context: the context
//     package calls its Done, Err and Value methods from the goroutine it
//     starts to wait for the parent's end, and from a deadline's timer.
//
// No honest solution needs any of these: no exercise runs anything
// concurrently, and the contexts an exercise uses come from its tests.

// spawners are the functions and types that run code on a goroutine of its
// own, by their full names, with what a refusal says of them.
var spawners = map[string]string{
	"time.AfterFunc":       "runs a function on a goroutine of its own",
	"context.AfterFunc":    "runs a function on a goroutine of its own",
	"(*sync.WaitGroup).Go": "starts a goroutine",
	"sync.WaitGroup":       "waits for goroutines, and its Go method starts one",
	"iter.Pull":            "runs the iterator on a goroutine of its own",
	"iter.Pull2":           "runs the iterator on a goroutine of its own",
}

// stdTypes type-checks the standard library's packages from their source,
// once for the whole grading: a few hundred milliseconds for the allowed
// imports and what they import. The importer is not safe for concurrent
// use, so every check holds the lock.
var stdTypes = struct {
	sync.Mutex
	fset *token.FileSet
	imp  types.Importer
}{}

// checkGoroutines type-checks an exercise's files (which import only the
// standard library, and compile) and returns why they cannot be graded:
// the first way they have of running code on another goroutine, named by
// file and line. "" means none. It gives up, saying so, when ctx ends
// first.
//
// files is the whole package; only what learner holds is judged.
func checkGoroutines(ctx context.Context, exercise, pkgPath string, files, learner map[string][]byte) string {
	done := make(chan string, 1)
	go func() {
		// A fault of go/types on strange code must cost the learner this
		// exercise, not stop the grading of everyone.
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Sprintf("the grader's type check of the code failed: %v", r)
			}
		}()
		done <- goroutineRefusal(exercise, pkgPath, files, learner)
	}()
	select {
	case msg := <-done:
		return msg
	case <-ctx.Done():
		return "the grader's type check of the code did not finish in its time budget"
	}
}

func goroutineRefusal(exercise, pkgPath string, files, learner map[string][]byte) string {
	stdTypes.Lock()
	defer stdTypes.Unlock()
	if stdTypes.imp == nil {
		stdTypes.fset = token.NewFileSet()
		stdTypes.imp = importer.ForCompiler(stdTypes.fset, "source", nil)
	}
	fset := stdTypes.fset
	var parsed []*ast.File
	for _, name := range slices.Sorted(maps.Keys(files)) {
		f, err := parser.ParseFile(fset, "exercises/"+exercise+"/"+name, files[name], parser.SkipObjectResolution)
		if err != nil {
			return fmt.Sprintf("does not parse: %v", err)
		}
		parsed = append(parsed, f)
	}
	ctxPkg, err := stdTypes.imp.Import("context")
	if err != nil {
		return fmt.Sprintf("the grader could not load the context package's types: %v", err)
	}
	contextIface := ctxPkg.Scope().Lookup("Context").Type().Underlying().(*types.Interface)
	info := &types.Info{
		Types: map[ast.Expr]types.TypeAndValue{},
		Defs:  map[*ast.Ident]types.Object{},
		Uses:  map[*ast.Ident]types.Object{},
	}
	conf := types.Config{Importer: stdTypes.imp, Error: func(error) {}}
	pkg, err := conf.Check(pkgPath, fset, parsed, info)
	if err != nil {
		// The go command compiled these files: a difference between its
		// type checker and go/types is the grader's to explain.
		return fmt.Sprintf("the grader could not check the code's types (though it compiles): %v", err)
	}
	where := func(pos token.Pos) string {
		p := fset.Position(pos)
		return fmt.Sprintf("%s:%d", p.Filename, p.Line)
	}
	prefix := "exercises/" + exercise + "/"
	learners := func(pos token.Pos) bool {
		_, ok := learner[strings.TrimPrefix(fset.Position(pos).Filename, prefix)]
		return ok
	}

	// Every use of a spawner, in source order.
	var found []token.Pos
	byPos := map[token.Pos]string{}
	for id, obj := range info.Uses {
		name := fullName(obj)
		if what, ok := spawners[name]; ok && learners(id.Pos()) {
			found = append(found, id.Pos())
			byPos[id.Pos()] = fmt.Sprintf("%s: %s %s, which graded code may not do", where(id.Pos()), name, what)
		}
	}
	if len(found) > 0 {
		slices.Sort(found)
		return byPos[found[0]]
	}

	// Every type of the learner's own that is a context: the types they
	// declare and those of every expression (a struct literal type that
	// embeds a context and a learner type can have the learner's Done).
	var candidates []token.Pos
	seen := map[types.Type]bool{}
	consider := func(t types.Type, pos token.Pos) {
		if t == nil || seen[t] || !learners(pos) {
			return
		}
		seen[t] = true
		if ownContext(t, pkg, contextIface) {
			candidates = append(candidates, pos)
			byPos[pos] = fmt.Sprintf("%s: %s is a context.Context of graded code's own: the context package would call its methods on a goroutine it starts, which graded code may not do (use the context the tests give)",
				where(pos), types.TypeString(t, types.RelativeTo(pkg)))
		}
	}
	for id, obj := range info.Defs {
		if tn, ok := obj.(*types.TypeName); ok {
			consider(tn.Type(), id.Pos())
		}
	}
	for expr, tv := range info.Types {
		if tv.IsType() || tv.IsValue() {
			consider(tv.Type, expr.Pos())
		}
	}
	if len(candidates) > 0 {
		slices.Sort(candidates)
		return byPos[candidates[0]]
	}
	return ""
}

// fullName is an object's name as spawners keys it: "time.AfterFunc",
// "(*sync.WaitGroup).Go", "sync.WaitGroup"; generic functions and methods
// by their origin.
func fullName(obj types.Object) string {
	switch o := obj.(type) {
	case *types.Func:
		return o.Origin().FullName()
	case *types.TypeName:
		if o.Pkg() != nil {
			return o.Pkg().Path() + "." + o.Name()
		}
	}
	return ""
}

// ownContext reports whether t, or a pointer to it, is a context.Context
// whose methods could be graded code's: a named type that pkg declares,
// or a struct type written out in pkg (which can embed one). Interfaces
// and the standard library's own types are left alone: an interface value
// holds a concrete type that was checked where it was made.
func ownContext(t types.Type, pkg *types.Package, contextIface *types.Interface) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	switch tt := t.(type) {
	case *types.Named:
		if tt.Obj().Pkg() != pkg {
			return false
		}
		if tt.TypeParams().Len() > 0 && tt.TypeArgs().Len() == 0 {
			return false // generic: its instances are checked where they are used
		}
	case *types.Alias:
		return ownContext(types.Unalias(tt), pkg, contextIface)
	case *types.Struct:
	default:
		return false
	}
	if types.IsInterface(t) {
		return false
	}
	return types.Implements(t, contextIface) || types.Implements(types.NewPointer(t), contextIface)
}
