package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// buildTimeout bounds the compilation of one exercise: a cold build cache
// compiles the standard library and the engine too.
const buildTimeout = 5 * time.Minute

// buildMemory bounds the data memory of each process of a compilation (the
// go command, the compiler, the linker): well above what the course's
// largest exercise, engine included, needs, and far below what a few lines
// declaring a huge initialised array would make the compiler take.
const buildMemory = 1 << 30

// buildFileSize bounds every file a compilation writes (objects in the
// build cache, the test binary).
const buildFileSize = 256 << 20

// compileLines is how much of the compiler's output a report keeps.
const compileLines = 12

// harnessFile is the test file the grader adds to every exercise it builds:
// its TestMain proves to the grader that the test ran to its end (see
// runTest). Tests, public or hidden, may not declare a TestMain of their
// own.
const harnessFile = "zz_grade_harness_test.go"

// harnessSource is harnessFile's text for an exercise's package. The
// token arrives on descriptor 4 and the verdict leaves on descriptor 3,
// neither of which graded code can reach: it may not import os or
// syscall, and the sandbox gives it nothing else. "started" says the
// package's initialisation finished, so a test that never got that far is
// told apart from one that was too slow.
func harnessSource(pkg string) string {
	return `package ` + pkg + `

import (
	"io"
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	token := make([]byte, 32)
	in := os.NewFile(4, "token")
	_, err := io.ReadFull(in, token)
	in.Close()
	out := os.NewFile(3, "verdict")
	out.Write([]byte("started\n"))
	code := m.Run()
	if code == 0 && err == nil {
		out.Write(token)
	}
	out.Close()
	os.Exit(code)
}
`
}

// hiddenBuildMessage is what a learner is told when their code builds with
// the public tests but not with the instructor's: nothing of the hidden
// tests themselves (their paths, lines, names or values) is shown.
const hiddenBuildMessage = "your code compiles with the public tests but not with the instructor's tests: check that every function keeps the exact signature its stub gives"

// buildExercise compiles one exercise's test binary from the grader's own
// tests and the learner's files, without copying the learner's files into the
// grader's checkout: `go test -c -overlay` sees, in the exercise's folder, the
// learner's non-test files in place of the stubs, the checkout's test files,
// the grader's harness and the hidden tests. Every step runs in the sandbox.
// It returns the binary, or what the learner is told when their code does
// not build; err is for the grader's own failures. When the code builds
// with the public tests but not with the hidden ones, the binary has the
// public tests only, and hiddenErr says what the learner is told.
func buildExercise(ctx context.Context, b builder, scratch string, ex *Exercise, w Work, hidden []string) (out built, err error) {
	src := filepath.Join(scratch, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return out, err
	}
	replace := map[string]string{}
	for _, stub := range ex.Stubs {
		if !slices.Contains(ex.Given, stub) {
			replace[filepath.Join(ex.Dir, stub)] = "" // "" removes the file
		}
	}
	for _, name := range slices.Sorted(maps.Keys(w.Files)) {
		copyPath := filepath.Join(src, name)
		if err := os.WriteFile(copyPath, w.Files[name], 0o644); err != nil {
			return out, err
		}
		replace[filepath.Join(ex.Dir, name)] = copyPath
	}
	harness := filepath.Join(scratch, harnessFile)
	if err := os.WriteFile(harness, []byte(harnessSource(ex.Package)), 0o644); err != nil {
		return out, err
	}
	replace[filepath.Join(ex.Dir, harnessFile)] = harness
	public := maps.Clone(replace)
	for _, h := range hidden {
		name := "zz_hidden_" + filepath.Base(h)
		if _, err := os.Lstat(filepath.Join(ex.Dir, name)); err == nil {
			return out, fmt.Errorf("hidden test %s: the exercise already has a file %s", h, name)
		}
		replace[filepath.Join(ex.Dir, name)] = h
	}
	overlay := func(name string, r map[string]string) (string, error) {
		data, err := json.Marshal(map[string]any{"Replace": r})
		if err != nil {
			return "", err
		}
		path := filepath.Join(scratch, name)
		return path, os.WriteFile(path, data, 0o644)
	}
	publicOverlay, err := overlay("overlay-public.json", public)
	if err != nil {
		return out, err
	}
	binary := filepath.Join(scratch, ex.Name+".test")

	// The compiler names the learner's files by their scratch copies: give
	// them back the names the learner knows.
	learnerPaths := learnerNames(ex.Name)
	pkg := "./exercises/" + ex.Name
	// First the learner's files alone, without any test file: code that
	// compiles only next to the tests would be reaching into the tests'
	// fixtures or answers. It is built exactly as the test binary is (the
	// same flags, so the same build tags, and the same environment), so
	// that no file can enter one build and not the other; listFiles
	// checks that afterwards, with the go command's own list.
	if msg, err := b.goCommand(ctx, scratch, b.flags("build", "-overlay", publicOverlay, pkg)...); msg != "" || err != nil {
		out.compileErr = learnerPaths(msg)
		return out, err
	}
	if !b.unchecked {
		// The given files are part of the package the types are checked
		// in; being the course's, they are refused nothing.
		pkgFiles := maps.Clone(w.Files)
		for _, name := range ex.Given {
			data, err := readRegular(filepath.Join(ex.Dir, name), maxFileBytes)
			if err != nil {
				return out, err
			}
			pkgFiles[name] = data
		}
		if msg := checkGoroutines(ctx, ex.Name, modulePath+"/exercises/"+ex.Name, pkgFiles, w.Files); msg != "" {
			out.refused = msg
			return out, ctx.Err()
		}
	}
	testArgs := func(overlay string) []string {
		return b.flags("test", "-c", "-vet=off", "-o", binary, "-overlay", overlay, pkg)
	}
	// finish checks the package the go command built, and records its
	// compiled files for removal once the tests have run.
	finish := func(overlay string) (built, error) {
		out.binary = binary
		var refused string
		out.archives, refused, err = b.listBuild(ctx, scratch, overlay, pkg, ex, w, overlay != publicOverlay)
		if info, serr := os.Stat(binary); refused == "" && serr == nil && info.Size() > maxBinary {
			refused = fmt.Sprintf("the test binary is %d MiB, over the limit of %d MiB (every test process loads it): does the code declare a large array or table?", info.Size()>>20, maxBinary>>20)
		}
		if refused != "" {
			out.binary, out.refused = "", refused
		}
		return out, err
	}
	if len(hidden) == 0 {
		msg, err := b.goCommand(ctx, scratch, testArgs(publicOverlay)...)
		if msg != "" || err != nil {
			out.compileErr = learnerPaths(msg)
			return out, err
		}
		return finish(publicOverlay)
	}
	// With hidden tests, a failure must not show them: the compiler's
	// messages are shown only if the public tests alone fail to build too,
	// and what the learner is told otherwise is the grader's own (see
	// hiddenBuildHelp), never a line of the compiler's.
	hiddenOverlay, err := overlay("overlay.json", replace)
	if err != nil {
		return out, err
	}
	msg, err := b.goCommand(ctx, scratch, testArgs(hiddenOverlay)...)
	if err != nil {
		return out, err
	}
	if msg == "" {
		return finish(hiddenOverlay)
	}
	if pmsg, err := b.goCommand(ctx, scratch, testArgs(publicOverlay)...); pmsg != "" || err != nil {
		out.compileErr = learnerPaths(pmsg)
		return out, err
	}
	// The public tests still run, and count.
	out.hiddenErr = hiddenBuildHelp(ex, w, hidden)
	return finish(publicOverlay)
}

// built is what buildExercise made of one exercise.
type built struct {
	binary     string   // the test binary, or "" when there is none to run
	compileErr string   // the compiler's message to the learner, when their code did not compile
	refused    string   // why code that compiles is not graded
	hiddenErr  string   // why the hidden tests are not in the binary, when they are not
	archives   []string // the build cache's files compiled from the learner's code
}

// flags is the go command's verb with the flags every build of graded code
// shares, then args.
func (b builder) flags(verb string, args ...string) []string {
	out := []string{verb}
	if b.race {
		out = append(out, "-race")
	}
	return append(out, args...)
}

// learnerNames gives the learner's files back the names the learner
// knows in a compiler's message: compilerMessage has made the paths
// relative to the scratch folder, where the compiler saw them, as
// src/name.go.
func learnerNames(exercise string) func(string) string {
	return func(msg string) string {
		lines := strings.Split(msg, "\n")
		for i, line := range lines {
			rest := strings.TrimLeft(line, " \t")
			if after, ok := strings.CutPrefix(rest, "src/"); ok {
				lines[i] = line[:len(line)-len(rest)] + "exercises/" + exercise + "/" + after
			}
		}
		return strings.Join(lines, "\n")
	}
}

// builder runs the go command in the sandbox, on the grader's checkout.
type builder struct {
	sb                           *Sandbox
	root                         string // the grader's checkout
	hidden                       string // the hidden tests' folder, or ""
	cache                        string // the grader's own build cache
	race                         bool   // build with the race detector
	unchecked                    bool   // Config.unchecked: the grader's tests of the sandbox
	goBin, goroot, modcache, cgo string
}

// newBuilder finds the go command and its folders, and makes sure the
// modules the checkout needs are in the module cache: the sandbox has no
// network, so they are fetched first, outside it, for the grader's own
// go.mod (never a submission's).
func newBuilder(ctx context.Context, cfg Config) (builder, error) {
	b := builder{sb: cfg.Sandbox, root: cfg.Root, hidden: cfg.Hidden, cache: cfg.Cache, race: cfg.Race, unchecked: cfg.unchecked}
	goBin, err := exec.LookPath("go")
	if err != nil {
		return b, errors.New("the go command is not on PATH")
	}
	b.goBin = goBin
	out, err := exec.CommandContext(ctx, goBin, "env", "GOROOT", "GOMODCACHE", "CGO_ENABLED").Output()
	if err != nil {
		return b, fmt.Errorf("go env: %w", err)
	}
	vals := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(vals) != 3 {
		return b, fmt.Errorf("go env printed %q", out)
	}
	b.goroot, b.modcache, b.cgo = vals[0], vals[1], vals[2]
	if b.goroot, err = filepath.EvalSymlinks(b.goroot); err != nil {
		return b, err
	}
	if b.cache == "" {
		return b, errors.New("no build cache folder given")
	}
	if err := os.MkdirAll(b.cache, 0o755); err != nil {
		return b, err
	}
	if err := os.MkdirAll(b.modcache, 0o755); err != nil {
		return b, err
	}
	dl := exec.CommandContext(ctx, goBin, "mod", "download")
	dl.Dir = cfg.Root
	dl.Env = append(os.Environ(), "GOFLAGS=", "GOTOOLCHAIN=local")
	if out, err := dl.CombinedOutput(); err != nil {
		return b, fmt.Errorf("go mod download in %s: %v: %s", cfg.Root, err, out)
	}
	return b, nil
}

// goCommand runs the go command on the checkout, in the sandbox, with
// scratch as its only writable folder besides the build cache, and returns
// the compiler's message if it failed on the code, or err if it could not
// run at all.
func (b builder) goCommand(ctx context.Context, scratch string, args ...string) (string, error) {
	_, msg, err := b.goOutput(ctx, scratch, args...)
	return msg, err
}

// goOutput is goCommand that also returns what the go command wrote to its
// standard output, when it succeeded: go list's answer.
func (b builder) goOutput(ctx context.Context, scratch string, args ...string) (stdout []byte, msg string, err error) {
	ctx, cancel := context.WithTimeout(ctx, buildTimeout)
	defer cancel()
	tmp := filepath.Join(scratch, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, "", err
	}
	j := jail{
		binds: []bind{
			{from: b.goroot}, {from: b.modcache}, {from: b.root},
			{from: scratch, write: true}, {from: b.cache, write: true},
		},
		dir: b.root,
		env: []string{
			"PATH=" + filepath.Join(b.goroot, "bin") + ":/usr/bin:/bin",
			"HOME=" + tmp, "TMPDIR=" + tmp, "GOROOT=" + b.goroot,
			"GOCACHE=" + b.cache, "GOMODCACHE=" + b.modcache, "GOPATH=" + filepath.Join(tmp, "gopath"),
			"GOFLAGS=-mod=readonly", "GOPROXY=off", "GOTOOLCHAIN=local", "GOTELEMETRY=off",
			"GOENV=off", "GOWORK=off", "GO111MODULE=on", "CGO_ENABLED=" + b.cgo,
		},
		lim: limits{data: buildMemory, cpu: int64(2 * buildTimeout / time.Second), fsize: buildFileSize, nofile: 4096},
	}
	if b.hidden != "" {
		j.binds = append(j.binds, bind{from: b.hidden})
	}
	cmd := b.sb.command(ctx, j, append([]string{filepath.Join(b.goroot, "bin", "go")}, args...)...)
	var outBuf, errBuf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &outBuf, &errBuf
	err = cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return nil, fmt.Sprintf("compiling took longer than %s", buildTimeout), nil
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, "", ctx.Err()
		}
		if _, ok := err.(*exec.ExitError); !ok {
			return nil, "", fmt.Errorf("running go %s: %w", args[0], err)
		}
		return nil, compilerMessage(outBuf.String()+errBuf.String(), b.root, scratch), nil
	}
	return outBuf.Bytes(), "", nil
}

// compilerMessage keeps the first lines of the compiler's output, with paths
// relative to the checkout, as the learner knows them.
func compilerMessage(out, root, scratch string) string {
	var lines []string
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimRight(line, "\r ")
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "FAIL") {
			continue
		}
		line = strings.ReplaceAll(line, root+string(filepath.Separator), "")
		line = strings.ReplaceAll(line, scratch+string(filepath.Separator), "")
		if strings.Contains(line, "signal: killed") || strings.Contains(line, "cannot allocate memory") ||
			strings.Contains(line, "out of memory") || strings.Contains(line, "file too large") {
			return fmt.Sprintf("compiling took more than the limits allow (%d MiB of memory a process, files of %d MiB): %s", buildMemory>>20, buildFileSize>>20, line)
		}
		lines = append(lines, line)
		if len(lines) == compileLines {
			break
		}
	}
	if len(lines) == 0 {
		return "did not compile"
	}
	return strings.Join(lines, "\n")
}

// prepareRunDir makes the folder the tests run in: a copy of the exercise's
// testdata (regular files only), nothing else.
func prepareRunDir(scratch string, ex *Exercise) (string, error) {
	run := filepath.Join(scratch, "run")
	if err := os.MkdirAll(run, 0o755); err != nil {
		return "", err
	}
	from := filepath.Join(ex.Dir, "testdata")
	if _, err := os.Stat(from); err != nil {
		return run, nil
	}
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(ex.Dir, path)
		to := filepath.Join(run, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case d.Type().IsRegular():
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return os.WriteFile(to, data, 0o644)
		}
		return nil
	})
	return run, err
}

// maxArchive bounds what an exercise's own code may compile to. A course
// exercise compiles to well under a megabyte; a few lines declaring a large
// initialised array compile to as much as the array, which every test
// process would then load, and which would fill the build cache shared
// with the next learners.
const maxArchive = 32 << 20

// maxBinary bounds an exercise's test binary, which every test process
// loads. The course's largest, the engine and the race detector included,
// is about 16 MiB; a large array that the compiler keeps small (its
// initial values made at start-up) grows only the linked binary.
const maxBinary = 64 << 20

// listedPackage is what go list says of one package of a test build.
type listedPackage struct {
	ImportPath, Dir, Export string
	GoFiles, IgnoredGoFiles []string
	InvalidGoFiles          []string
	CgoFiles, CFiles        []string
	CXXFiles, MFiles        []string
	HFiles, FFiles, SFiles  []string
	SwigFiles, SwigCXXFiles []string
	SysoFiles, EmbedFiles   []string
	Error                   *struct{ Err string }
}

// listBuild asks the go command, with the flags of the build it just made,
// what that build took: every one of the learner's files must be among the
// package's Go files, in the package alone and in its test build, and no
// file of another kind may be. (checkSource refuses what would make it
// otherwise; this is the go command's own word that nothing was missed.)
// It also finds the build cache's files compiled from the learner's code:
// the package, the package built with its tests and the test's main
// package, for removal once the tests have run, and refuses a package
// that compiled to more than maxArchive.
//
// With the hidden tests in the build (withHidden), the go command's own
// words are left out of what the learner is told: they could name a hidden
// file.
func (b builder) listBuild(ctx context.Context, scratch, overlay, pkg string, ex *Exercise, w Work, withHidden bool) (archives []string, refused string, err error) {
	said := func(what, msg string) string {
		if withHidden {
			return what
		}
		return what + ": " + firstLine(msg)
	}
	fields := "ImportPath,Dir,Export,GoFiles,IgnoredGoFiles,InvalidGoFiles,CgoFiles,CFiles,CXXFiles,MFiles,HFiles,FFiles,SFiles,SwigFiles,SwigCXXFiles,SysoFiles,EmbedFiles,Error"
	out, msg, err := b.goOutput(ctx, scratch, b.flags("list", "-e", "-test", "-export", "-overlay", overlay, "-json="+fields, pkg)...)
	if err != nil {
		return nil, "", err
	}
	if msg != "" {
		return nil, said("the grader could not list what the build took", msg), nil
	}
	importPath := modulePath + "/exercises/" + ex.Name
	dec := json.NewDecoder(bytes.NewReader(out))
	var own, withTests bool
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return archives, "", fmt.Errorf("go list printed what the grader cannot read: %w", err)
		}
		if p.Export != "" && inside(b.cache, p.Export) {
			archives = append(archives, p.Export)
		}
		variant := p.ImportPath == importPath
		if !variant && !strings.HasPrefix(p.ImportPath, importPath+" [") {
			continue
		}
		own, withTests = own || variant, withTests || !variant
		if p.Error != nil {
			refused = cmp.Or(refused, said("the go command could not list the package", p.Error.Err))
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(w.Files)) {
			if !slices.Contains(p.GoFiles, name) {
				refused = cmp.Or(refused, fmt.Sprintf("exercises/%s/%s is not part of every build of the package (%s): graded code is built as it is", ex.Name, name, p.ImportPath))
			}
		}
		for _, other := range [][]string{p.CgoFiles, p.CFiles, p.CXXFiles, p.MFiles, p.HFiles, p.FFiles, p.SFiles, p.SwigFiles, p.SwigCXXFiles, p.SysoFiles, p.EmbedFiles} {
			if len(other) > 0 {
				refused = cmp.Or(refused, fmt.Sprintf("the package's build takes %q, which is not Go: graded code is Go alone", other[0]))
			}
		}
		if variant && p.Export != "" {
			if info, err := os.Stat(p.Export); err == nil && info.Size() > maxArchive {
				refused = cmp.Or(refused, fmt.Sprintf("the code compiles to %d MiB, over the limit of %d MiB for graded code (a large array or table written out in the source?)", info.Size()>>20, maxArchive>>20))
			}
		}
	}
	if !own || !withTests {
		refused = cmp.Or(refused, "the grader could not find the package in what the build took")
	}
	return archives, refused, nil
}

// inside reports whether path is within dir.
func inside(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && filepath.IsAbs(path) && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// removeArchives deletes the build cache's files that a learner's code
// compiled to: they serve no one else, and a large one would push the
// files every learner's build needs out of the trimmed cache. The go
// command treats a missing file as a miss and compiles again.
func removeArchives(cache string, archives []string) {
	for _, a := range archives {
		if inside(cache, a) {
			os.Remove(a)
		}
	}
}

// hiddenBuildHelp is what a learner is told when their code builds with
// the public tests and not with the instructor's: hiddenBuildMessage, and
// what the grader itself can say without showing anything of the hidden
// tests, never the compiler's lines (which, even on the learner's own
// lines, can name what the hidden tests import or declare). It compares
// the learner's declarations with the stubs' (a signature that differs is
// the usual cause), and else checks whether a name the learner added is
// one the hidden files declare, naming the names the learner added, not
// which of them collides.
func hiddenBuildHelp(ex *Exercise, w Work, hidden []string) string {
	lines := []string{hiddenBuildMessage}
	stubs := map[string][]byte{}
	for _, name := range ex.Stubs {
		if slices.Contains(ex.Given, name) {
			continue // built from the course's copy, never the learner's
		}
		if data, err := readRegular(filepath.Join(ex.Dir, name), maxFileBytes); err == nil {
			stubs[name] = data
		}
	}
	stubDecls, learnerDecls := declarations(stubs), declarations(w.Files)
	for _, name := range slices.Sorted(maps.Keys(stubDecls)) {
		want, got := stubDecls[name], learnerDecls[name]
		switch {
		case got == "":
			lines = append(lines, fmt.Sprintf("%s: the stub declares %s; your code does not declare it", name, want))
		case got != want && !(strings.HasPrefix(got, want) && !strings.HasPrefix(want, "func")):
			// A constant or variable the stub leaves untyped may be
			// typed; anything else must be as the stub has it.
			lines = append(lines, fmt.Sprintf("%s: the stub declares %s; yours is %s", name, want, got))
		}
		if len(lines) > 4 {
			break
		}
	}
	if len(lines) > 1 {
		return strings.Join(lines, "\n")
	}
	hiddenNames := map[string]bool{}
	for _, h := range hidden {
		for name := range topLevelNames(h) {
			hiddenNames[name] = true
		}
	}
	var added []string
	collides := false
	for _, name := range slices.Sorted(maps.Keys(learnerDecls)) {
		if _, ok := stubDecls[name]; !ok {
			added = append(added, name)
			collides = collides || hiddenNames[name]
		}
	}
	if collides {
		lines = append(lines, fmt.Sprintf("one of the names your code declares beside the stub's (%s) is declared by the instructor's tests too: rename the helpers you added", clip(strings.Join(added, ", "), 300)))
	}
	return strings.Join(lines, "\n")
}

// declarations maps each package-level name of the files (functions,
// methods as Type.Method, types, variables and constants) to what a test's
// use of it depends on, as text: a function's or method's signature
// without parameter names, a variable's or constant's written type, and
// for a type only that it is one (a learner may add fields to a stub's
// struct).
func declarations(files map[string][]byte) map[string]string {
	decls := map[string]string{}
	fset := token.NewFileSet()
	text := func(n ast.Node) string {
		var b bytes.Buffer
		printer.Fprint(&b, fset, n)
		return strings.Join(strings.Fields(b.String()), " ")
	}
	fieldTypes := func(fl *ast.FieldList) string {
		if fl == nil {
			return ""
		}
		var types []string
		for _, f := range fl.List {
			for range max(len(f.Names), 1) {
				types = append(types, text(f.Type))
			}
		}
		return strings.Join(types, ", ")
	}
	signature := func(ft *ast.FuncType) string {
		sig := "func(" + fieldTypes(ft.Params) + ")"
		if res := fieldTypes(ft.Results); res != "" {
			if ft.Results.NumFields() > 1 {
				res = "(" + res + ")"
			}
			sig += " " + res
		}
		return sig
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		f, err := parser.ParseFile(fset, name, files[name], parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				key := d.Name.Name
				if d.Recv != nil && len(d.Recv.List) == 1 {
					key = receiverName(d.Recv.List[0].Type) + "." + key
				}
				decls[key] = signature(d.Type)
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						decls[s.Name.Name] = "a type"
					case *ast.ValueSpec:
						for _, id := range s.Names {
							what := "a " + map[token.Token]string{token.CONST: "constant", token.VAR: "variable"}[d.Tok]
							if s.Type != nil {
								what += " of type " + text(s.Type)
							}
							decls[id.Name] = what
						}
					}
				}
			}
		}
	}
	delete(decls, "_")
	delete(decls, "init")
	return decls
}

// receiverName is a method receiver's type name: T for T, *T and T[P].
func receiverName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return "?"
		}
	}
}

// topLevelNames lists what a Go file declares in its package's scope and
// the names it imports packages by.
func topLevelNames(path string) map[string]bool {
	names := map[string]bool{}
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		return names
	}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		name := p[strings.LastIndex(p, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = true
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				names[d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					names[s.Name.Name] = true
				case *ast.ValueSpec:
					for _, id := range s.Names {
						names[id.Name] = true
					}
				}
			}
		}
	}
	return names
}
