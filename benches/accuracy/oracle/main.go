// Command oracle is the ground truth of kivgraph's accuracy harness.
//
// It parses Go packages with go/parser, selects their files with go/build for linux/amd64 (gc,
// cgo enabled), type-checks them with go/types, and writes JSON lines: the declarations kivgraph
// models, named the way kivgraph names them, and every use of those declarations that go/types
// records, with its position and its enclosing declaration. README.md in the parent directory
// says exactly which uses are counted.
//
// Usage:
//
//	oracle [-o FILE] [-tests=true] [-others=true] -repo NAME=DIR [-repo NAME=DIR ...] [PATTERN ...]
//
// Every directory of every root is discovered (so imports between them resolve through a custom
// importer over the parsed packages); the PATTERNs choose which are measured: "./..." (the
// default), a repository-relative directory "net/http", or a subtree "net/...". Imports that no
// root provides fall back to importer.ForCompiler(fset, "source", nil), which type-checks the
// standard library from GOROOT.
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type repoFlag []string

func (r *repoFlag) String() string     { return strings.Join(*r, ",") }
func (r *repoFlag) Set(v string) error { *r = append(*r, v); return nil }

type root struct {
	name     string
	dir      string
	patterns []string
}

// unit is one type-checked package: a directory's package (with its in-package tests), or its
// external test package (import path suffixed "_test", as kivgraph names it).
type unit struct {
	root     *root
	dir      string // absolute
	rel      string // repository-relative directory, "" for the root
	path     string // import path
	module   string // module path, "" without go.mod
	files    []string
	measured bool
	excluded []string // repository-relative paths excluded by build constraints

	ast   []*ast.File
	pkg   *types.Package
	info  *types.Info
	errs  []string
	state int // 0 new, 1 checking, 2 done
}

type loader struct {
	fset     *token.FileSet
	ctxt     build.Context
	byPath   map[string]*unit
	units    []*unit
	fallback types.ImporterFrom
	tests    bool
	modCache map[string][2]string
}

func main() {
	var repos repoFlag
	out := flag.String("o", "", "output file (default stdout)")
	tests := flag.Bool("tests", true, "include _test.go files (in-package tests and external test packages)")
	others := flag.Bool("others", true, "emit 'other' records: uses of unmodeled objects whose name a modeled declaration visible to the file also has")
	goos := flag.String("goos", "linux", "GOOS for file selection")
	goarch := flag.String("goarch", "amd64", "GOARCH for file selection")
	flag.Var(&repos, "repo", "NAME=DIR: a source root, named like the kivgraph repository (repeatable)")
	flag.Parse()
	if len(repos) == 0 {
		fmt.Fprintln(os.Stderr, "usage: oracle [-o FILE] -repo NAME=DIR [-repo NAME=DIR ...] [PATTERN ...]")
		os.Exit(2)
	}
	patterns := flag.Args()
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}

	ctxt := build.Default
	ctxt.GOOS = *goos
	ctxt.GOARCH = *goarch
	ctxt.CgoEnabled = true
	ctxt.Compiler = "gc"
	fset := token.NewFileSet()
	l := &loader{
		fset:     fset,
		ctxt:     ctxt,
		byPath:   map[string]*unit{},
		fallback: importer.ForCompiler(fset, "source", nil).(types.ImporterFrom),
		tests:    *tests,
		modCache: map[string][2]string{},
	}
	for _, r := range repos {
		name, dir, ok := strings.Cut(r, "=")
		if !ok {
			fatalf("-repo wants NAME=DIR, got %q", r)
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			fatalf("%v", err)
		}
		l.discover(&root{name: name, dir: abs, patterns: patterns})
	}

	var w io.Writer = os.Stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fatalf("%v", err)
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	defer bw.Flush()
	e := &emitter{l: l, w: bw, others: *others, decls: map[types.Object]*declRec{}}
	e.run()
	fmt.Fprintf(os.Stderr, "oracle: %d packages, %d files, %d lines, %d declarations, %d uses, %d other records, %d type errors\n",
		e.nPkgs, e.nFiles, e.nLines, e.nDecls, e.nUses, e.nOthers, e.nErrs)
}

func fatalf(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "oracle: "+format+"\n", args...)
	os.Exit(1)
}

// ---- discovery ----

func (l *loader) discover(r *root) {
	var dirs []string
	err := filepath.WalkDir(r.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if p != r.dir && (name == "testdata" || strings.HasPrefix(name, "_") || strings.HasPrefix(name, ".")) {
			return filepath.SkipDir
		}
		dirs = append(dirs, p)
		return nil
	})
	if err != nil {
		fatalf("walking %s: %v", r.dir, err)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		rel, _ := filepath.Rel(r.dir, dir)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			rel = ""
		}
		bp, err := l.ctxt.ImportDir(dir, 0)
		var noGo *build.NoGoError
		if err != nil && !errors.As(err, &noGo) {
			var multi *build.MultiplePackageError
			if errors.As(err, &multi) {
				fmt.Fprintf(os.Stderr, "oracle: skipping %s: %v\n", dir, err)
				continue
			}
			if bp == nil || len(bp.GoFiles)+len(bp.CgoFiles)+len(bp.TestGoFiles)+len(bp.XTestGoFiles) == 0 {
				if bp == nil || len(bp.IgnoredGoFiles) == 0 {
					continue
				}
			}
		}
		if bp == nil {
			continue
		}
		path, module := l.importPath(r, rel)
		measured := matches(r.patterns, rel)
		var excluded []string
		for _, f := range bp.IgnoredGoFiles {
			excluded = append(excluded, joinRel(rel, f))
		}
		files := append(append([]string{}, bp.GoFiles...), bp.CgoFiles...)
		if l.tests {
			files = append(files, bp.TestGoFiles...)
		}
		if len(files) > 0 || len(excluded) > 0 {
			u := &unit{root: r, dir: dir, rel: rel, path: path, module: module, files: sorted(files), measured: measured, excluded: excluded}
			l.add(u)
		}
		if l.tests && len(bp.XTestGoFiles) > 0 {
			u := &unit{root: r, dir: dir, rel: rel, path: path + "_test", module: module, files: sorted(bp.XTestGoFiles), measured: measured}
			l.add(u)
		}
	}
}

func (l *loader) add(u *unit) {
	if _, dup := l.byPath[u.path]; !dup {
		l.byPath[u.path] = u
	}
	l.units = append(l.units, u)
}

func sorted(xs []string) []string {
	sort.Strings(xs)
	return xs
}

func joinRel(dir, file string) string {
	if dir == "" {
		return file
	}
	return dir + "/" + file
}

func matches(patterns []string, rel string) bool {
	for _, p := range patterns {
		p = strings.TrimPrefix(p, "./")
		switch {
		case p == "..." || p == "." && rel == "":
			return true
		case strings.HasSuffix(p, "/..."):
			pre := strings.TrimSuffix(p, "/...")
			if rel == pre || strings.HasPrefix(rel, pre+"/") {
				return true
			}
		case p == rel:
			return true
		}
	}
	return false
}

// importPath follows kivgraph's rule (SPEC §10.1): the nearest go.mod in the directory or an
// ancestor within the root names the module; module "std" gives unprefixed paths; without a
// module, the repository-relative directory, or the repository name for the root.
func (l *loader) importPath(r *root, rel string) (string, string) {
	d := rel
	for {
		key := r.dir + "\x00" + d
		mod, ok := l.modCache[key]
		if !ok {
			mod = [2]string{"", ""}
			if b, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(d), "go.mod")); err == nil {
				mod = [2]string{modulePath(string(b)), d}
			}
			l.modCache[key] = mod
		}
		if mod[0] != "" {
			rest := strings.TrimPrefix(strings.TrimPrefix(rel, mod[1]), "/")
			switch {
			case mod[0] == "std" && rest == "":
				return "std", "std"
			case mod[0] == "std":
				return rest, "std"
			case rest == "":
				return mod[0], mod[0]
			default:
				return mod[0] + "/" + rest, mod[0]
			}
		}
		if d == "" {
			break
		}
		if i := strings.LastIndex(d, "/"); i >= 0 {
			d = d[:i]
		} else {
			d = ""
		}
	}
	if rel == "" {
		return r.name, ""
	}
	return rel, ""
}

func modulePath(gomod string) string {
	for _, line := range strings.Split(gomod, "\n") {
		line = strings.TrimSpace(line)
		if rest := strings.TrimPrefix(line, "module"); rest != line && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
			rest = strings.TrimSpace(strings.SplitN(rest, "//", 2)[0])
			return strings.Trim(rest, `"`)
		}
	}
	return ""
}

// ---- type checking ----

type unitImporter struct {
	l    *loader
	from *unit
}

func (i unitImporter) Import(path string) (*types.Package, error) {
	return i.ImportFrom(path, i.from.dir, 0)
}

func (i unitImporter) ImportFrom(path, dir string, mode types.ImportMode) (*types.Package, error) {
	if path == "unsafe" {
		return types.Unsafe, nil
	}
	if t := i.l.resolve(i.from, path); t != nil {
		if t.state == 1 {
			return nil, fmt.Errorf("import cycle through %s", path)
		}
		i.l.check(t, false)
		if t.pkg == nil {
			return nil, fmt.Errorf("package %s could not be checked", path)
		}
		return t.pkg, nil
	}
	return i.l.fallback.ImportFrom(path, dir, mode)
}

// resolve finds the unit an import path names from unit `from`: the path itself, or the copy in
// the importing module's vendor directory (kivgraph's rule, which is also the go tool's for std).
func (l *loader) resolve(from *unit, path string) *unit {
	if u, ok := l.byPath[path]; ok {
		return u
	}
	vendored := "vendor/" + path
	if from.module != "" && from.module != "std" {
		vendored = from.module + "/vendor/" + path
	}
	return l.byPath[vendored]
}

func (l *loader) check(u *unit, withInfo bool) {
	if u.state != 0 {
		return
	}
	u.state = 1
	for _, f := range u.files {
		af, err := parser.ParseFile(l.fset, filepath.Join(u.dir, f), nil, parser.SkipObjectResolution|parser.AllErrors)
		if err != nil {
			u.errs = append(u.errs, err.Error())
		}
		if af != nil {
			u.ast = append(u.ast, af)
		}
	}
	conf := types.Config{
		Importer:    unitImporter{l, u},
		FakeImportC: true,
		Sizes:       types.SizesFor("gc", l.ctxt.GOARCH),
		Error:       func(err error) { u.errs = append(u.errs, err.Error()) },
	}
	if withInfo || u.measured {
		u.info = &types.Info{
			Uses:       map[*ast.Ident]types.Object{},
			Defs:       map[*ast.Ident]types.Object{},
			Selections: map[*ast.SelectorExpr]*types.Selection{},
		}
	}
	pkg, _ := conf.Check(u.path, l.fset, u.ast, u.info)
	u.pkg = pkg
	u.state = 2
}

// ---- emission ----

type target struct {
	Pkg  string `json:"pkg"`
	QN   string `json:"qn"`
	Kind string `json:"kind"`
}

type declRec struct {
	T        string  `json:"t"`
	Repo     string  `json:"repo"`
	Pkg      string  `json:"pkg"`
	File     string  `json:"file"`
	Line     int     `json:"line"`
	Col      int     `json:"col"`
	EndLine  int     `json:"end_line"`
	Kind     string  `json:"kind"`
	Detail   string  `json:"detail"`
	Name     string  `json:"name"`
	QN       string  `json:"qn"`
	MethodOf *target `json:"method_of,omitempty"`
	Embeds   *target `json:"embeds,omitempty"`
}

type useRec struct {
	T    string `json:"t"`
	Repo string `json:"repo"`
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
	Name string `json:"name"`
	// The target.
	Pkg    string `json:"pkg"`
	QN     string `json:"qn"`
	Kind   string `json:"kind"`
	Detail string `json:"detail"`
	// call, type or value: with the target's kind, the edge kind SPEC §10.4 prescribes.
	Use string `json:"use"`
	// The syntactic form of the use (README.md lists them).
	Form string `json:"form"`
	// The enclosing declaration in kivgraph's sense (SPEC §10.4), in the use's file.
	FromKind string `json:"from_kind"`
	FromQN   string `json:"from_qn"`
	FromLine int    `json:"from_line"`
}

type otherRec struct {
	T    string `json:"t"`
	Repo string `json:"repo"`
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
	Name string `json:"name"`
	Obj  string `json:"obj"`
}

type fileRec struct {
	T      string `json:"t"`
	Repo   string `json:"repo"`
	File   string `json:"file"`
	Pkg    string `json:"pkg"`
	Lines  int    `json:"lines"`
	Sha256 string `json:"sha256"`
	// A cgo file: measured for declarations only (README.md, "Not counted").
	Cgo bool `json:"cgo,omitempty"`
}

type excludedRec struct {
	T    string `json:"t"`
	Repo string `json:"repo"`
	File string `json:"file"`
	Pkg  string `json:"pkg"`
}

type pkgRec struct {
	T      string   `json:"t"`
	Repo   string   `json:"repo"`
	Dir    string   `json:"dir"`
	Pkg    string   `json:"pkg"`
	Files  int      `json:"files"`
	Errors int      `json:"errors"`
	Sample []string `json:"error_sample,omitempty"`
}

type emitter struct {
	l      *loader
	w      *bufio.Writer
	others bool
	decls  map[types.Object]*declRec
	// per unit: top-level names and member names of the unit itself
	top     map[*unit]map[string]bool
	members map[*unit]map[string]bool
	// init functions (not objects of any scope), and references resolved after collection.
	extraDecls      []*declRec
	pendingMethodOf []pendingRef
	pendingEmbeds   []pendingRef
	resolvedPending bool

	nPkgs, nFiles, nLines, nDecls, nUses, nOthers, nErrs int
}

func (e *emitter) write(v interface{}) {
	b, err := json.Marshal(v)
	if err != nil {
		fatalf("%v", err)
	}
	e.w.Write(b)
	e.w.WriteByte('\n')
}

func (e *emitter) run() {
	var measured []*unit
	for _, u := range e.l.units {
		if u.measured {
			measured = append(measured, u)
		}
	}
	sort.SliceStable(measured, func(i, j int) bool {
		a, b := measured[i], measured[j]
		if a.root.name != b.root.name {
			return a.root.name < b.root.name
		}
		return a.path < b.path
	})
	for _, u := range measured {
		e.l.check(u, true)
	}
	// Declarations of every measured unit first: a use in one package names another's.
	e.top = map[*unit]map[string]bool{}
	e.members = map[*unit]map[string]bool{}
	for _, u := range measured {
		e.collectDecls(u)
	}
	for _, u := range measured {
		e.emitUnit(u)
	}
}

func (e *emitter) rel(u *unit, pos token.Pos) (string, int, int) {
	p := e.l.fset.Position(pos)
	r, err := filepath.Rel(u.root.dir, p.Filename)
	if err != nil {
		r = p.Filename
	}
	return filepath.ToSlash(r), p.Line, p.Column - 1
}

func (e *emitter) newDecl(u *unit, f *ast.File, n ast.Node, name, qn, kind, detail string) *declRec {
	file, line, col := e.rel(u, n.Pos())
	end := e.l.fset.Position(n.End()).Line
	return &declRec{T: "decl", Repo: u.root.name, Pkg: u.path, File: file, Line: line, Col: col, EndLine: end, Kind: kind, Detail: detail, Name: name, QN: qn}
}

// recvTypeIdent is the base type name of a receiver type expression: T in *T, T[K], (*T).
func recvTypeIdent(x ast.Expr) *ast.Ident {
	for {
		switch t := x.(type) {
		case *ast.StarExpr:
			x = t.X
		case *ast.ParenExpr:
			x = t.X
		case *ast.IndexExpr:
			x = t.X
		case *ast.IndexListExpr:
			x = t.X
		case *ast.Ident:
			return t
		default:
			return nil
		}
	}
}

// embeddedIdent is the identifier naming an embedded field: T in T, *T, pkg.T, T[int].
func embeddedIdent(x ast.Expr) *ast.Ident {
	for {
		switch t := x.(type) {
		case *ast.StarExpr:
			x = t.X
		case *ast.ParenExpr:
			x = t.X
		case *ast.IndexExpr:
			x = t.X
		case *ast.IndexListExpr:
			x = t.X
		case *ast.SelectorExpr:
			return t.Sel
		case *ast.Ident:
			return t
		default:
			return nil
		}
	}
}

func (e *emitter) collectDecls(u *unit) {
	top, mem := map[string]bool{}, map[string]bool{}
	e.top[u], e.members[u] = top, mem
	info := u.info
	add := func(obj types.Object, d *declRec) {
		e.decls[obj] = d
		if strings.Contains(d.QN, ".") {
			mem[d.Name] = true
		} else {
			top[d.Name] = true
		}
	}
	for _, f := range u.ast {
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Name.Name == "_" {
					continue
				}
				obj := info.Defs[d.Name]
				if d.Recv == nil || len(d.Recv.List) == 0 {
					rec := e.newDecl(u, f, d, d.Name.Name, d.Name.Name, "func", "func")
					if obj == nil {
						// init functions are not objects of the package scope; kivgraph records them.
						e.extraDecls = append(e.extraDecls, rec)
						continue
					}
					add(obj, rec)
					continue
				}
				id := recvTypeIdent(d.Recv.List[0].Type)
				if id == nil || obj == nil {
					continue
				}
				rec := e.newDecl(u, f, d, d.Name.Name, id.Name+"."+d.Name.Name, "method", "method")
				add(obj, rec)
				e.pendingMethodOf = append(e.pendingMethodOf, pendingRef{rec, id, u})
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if s.Name.Name == "_" {
							continue
						}
						obj := info.Defs[s.Name]
						if obj == nil {
							continue
						}
						kind := "type"
						if s.Assign.IsValid() {
							kind = "alias"
						}
						add(obj, e.newDecl(u, f, s, s.Name.Name, s.Name.Name, kind, kind))
						switch t := s.Type.(type) {
						case *ast.StructType:
							for _, fld := range t.Fields.List {
								if len(fld.Names) == 0 {
									id := embeddedIdent(fld.Type)
									if id == nil {
										continue
									}
									fobj := info.Defs[id]
									if fobj == nil {
										continue
									}
									rec := e.newDecl(u, f, fld, id.Name, s.Name.Name+"."+id.Name, "field", "embedded_field")
									add(fobj, rec)
									e.pendingEmbeds = append(e.pendingEmbeds, pendingRef{rec, id, u})
									continue
								}
								for _, n := range fld.Names {
									if n.Name == "_" {
										continue
									}
									if fobj := info.Defs[n]; fobj != nil {
										add(fobj, e.newDecl(u, f, fld, n.Name, s.Name.Name+"."+n.Name, "field", "field"))
									}
								}
							}
						case *ast.InterfaceType:
							for _, m := range t.Methods.List {
								for _, n := range m.Names {
									if n.Name == "_" {
										continue
									}
									if mobj := info.Defs[n]; mobj != nil {
										add(mobj, e.newDecl(u, f, m, n.Name, s.Name.Name+"."+n.Name, "method", "interface_method"))
									}
								}
							}
						}
					case *ast.ValueSpec:
						kind := "var"
						if d.Tok == token.CONST {
							kind = "const"
						}
						for _, n := range s.Names {
							if n.Name == "_" {
								continue
							}
							if obj := info.Defs[n]; obj != nil {
								add(obj, e.newDecl(u, f, s, n.Name, n.Name, kind, kind))
							}
						}
					}
				}
			}
		}
	}
}

type pendingRef struct {
	d  *declRec
	id *ast.Ident
	u  *unit
}

func (e *emitter) targetOf(obj types.Object) *target {
	if d := e.decls[origin(obj)]; d != nil {
		return &target{Pkg: d.Pkg, QN: d.QN, Kind: d.Kind}
	}
	return nil
}

func origin(obj types.Object) types.Object {
	switch o := obj.(type) {
	case *types.Var:
		return o.Origin()
	case *types.Func:
		return o.Origin()
	}
	return obj
}

func countLines(b []byte) int {
	n := 0
	for _, c := range b {
		if c == '\n' {
			n++
		}
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

func (e *emitter) emitUnit(u *unit) {
	if !e.resolvedPending {
		e.resolvePending()
	}
	e.nPkgs++
	sample := u.errs
	if len(sample) > 5 {
		sample = sample[:5]
	}
	e.nErrs += len(u.errs)
	e.write(pkgRec{T: "package", Repo: u.root.name, Dir: u.rel, Pkg: u.path, Files: len(u.files), Errors: len(u.errs), Sample: sample})
	for _, x := range u.excluded {
		e.write(excludedRec{T: "excluded", Repo: u.root.name, File: x, Pkg: u.path})
	}
	cgo := map[string]bool{}
	for _, af := range u.ast {
		for _, imp := range af.Imports {
			if imp.Path.Value == `"C"` {
				cgo[filepath.Base(e.l.fset.Position(af.Pos()).Filename)] = true
			}
		}
	}
	for _, f := range u.files {
		b, err := os.ReadFile(filepath.Join(u.dir, f))
		if err != nil {
			fatalf("%v", err)
		}
		sum := sha256.Sum256(b)
		lines := countLines(b)
		e.nFiles++
		e.nLines += lines
		e.write(fileRec{T: "file", Repo: u.root.name, File: joinRel(u.rel, f), Pkg: u.path, Lines: lines, Sha256: hex.EncodeToString(sum[:]), Cgo: cgo[f]})
	}
	// Declarations of this unit, in source order.
	var ds []*declRec
	for _, d := range e.decls {
		if d.Repo == u.root.name && d.Pkg == u.path {
			ds = append(ds, d)
		}
	}
	for _, d := range e.extraDecls {
		if d.Repo == u.root.name && d.Pkg == u.path {
			ds = append(ds, d)
		}
	}
	sort.Slice(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		return a.QN < b.QN
	})
	for _, d := range ds {
		e.nDecls++
		e.write(d)
	}
	names := e.visibleNames(u)
	for _, f := range u.ast {
		if cgo[filepath.Base(e.l.fset.Position(f.Pos()).Filename)] {
			continue
		}
		w := &walker{e: e, u: u, names: names, calls: map[*ast.Ident]bool{}, embedded: map[*ast.Ident]bool{}, recv: map[*ast.Ident]bool{}}
		w.file(f)
	}
}

func (e *emitter) resolvePending() {
	e.resolvedPending = true
	for _, p := range e.pendingMethodOf {
		// METHOD_OF: the receiver's type, when declared in the same package and not an interface.
		obj := p.u.info.Uses[p.id]
		tn, ok := obj.(*types.TypeName)
		if !ok || tn.Pkg() == nil || tn.Pkg().Path() != p.u.path {
			continue
		}
		p.d.MethodOf = e.targetOf(tn)
	}
	for _, p := range e.pendingEmbeds {
		if tn, ok := p.u.info.Uses[p.id].(*types.TypeName); ok {
			p.d.Embeds = e.targetOf(tn)
		}
	}
}

// visibleNames: the names kivgraph could bind at a use in unit u: the unit's own top-level and
// member names, and those of every unit it imports.
func (e *emitter) visibleNames(u *unit) map[string]bool {
	out := map[string]bool{}
	addUnit := func(x *unit) {
		for n := range e.top[x] {
			out[n] = true
		}
		for n := range e.members[x] {
			out[n] = true
		}
	}
	addUnit(u)
	if u.pkg != nil {
		for _, imp := range u.pkg.Imports() {
			if x, ok := e.l.byPath[imp.Path()]; ok && e.top[x] != nil {
				addUnit(x)
			}
		}
	}
	return out
}

// ---- the walk over one file ----

type walker struct {
	e        *emitter
	u        *unit
	names    map[string]bool
	from     *declRec // nil: the file's module symbol
	fileRel  string
	stack    []ast.Node
	calls    map[*ast.Ident]bool
	embedded map[*ast.Ident]bool
	recv     map[*ast.Ident]bool
	// How each local variable of the file was declared, by declaring position.
	localForm map[token.Pos]string
}

func (w *walker) declOf(id *ast.Ident) *declRec {
	if id == nil || id.Name == "_" {
		return nil
	}
	if obj := w.u.info.Defs[id]; obj != nil {
		return w.e.decls[obj]
	}
	return nil
}

func (w *walker) file(f *ast.File) {
	w.fileRel, _, _ = w.e.rel(w.u, f.Pos())
	w.localForm = map[token.Pos]string{}
	w.collectLocalForms(f)
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			w.from = w.declOf(d.Name)
			if w.from == nil && d.Name.Name == "init" && d.Recv == nil {
				w.from = w.findExtra(d)
			}
			if d.Recv != nil && len(d.Recv.List) > 0 {
				if id := recvTypeIdent(d.Recv.List[0].Type); id != nil {
					w.recv[id] = true
				}
			}
			w.visit(d)
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					typ := w.declOf(s.Name)
					w.from = typ
					if s.TypeParams != nil {
						w.visit(s.TypeParams)
					}
					switch t := s.Type.(type) {
					case *ast.StructType:
						for _, fld := range t.Fields.List {
							w.from = typ
							if len(fld.Names) == 0 {
								if id := embeddedIdent(fld.Type); id != nil {
									w.embedded[id] = true
									if typ != nil {
										if d := w.declOf(id); d != nil {
											w.from = d
										}
									}
								}
							} else if typ != nil {
								for _, n := range fld.Names {
									if d := w.declOf(n); d != nil {
										w.from = d
										break
									}
								}
							}
							w.visit(fld.Type)
						}
					case *ast.InterfaceType:
						for _, m := range t.Methods.List {
							w.from = typ
							if typ != nil {
								for _, n := range m.Names {
									if d := w.declOf(n); d != nil {
										w.from = d
										break
									}
								}
							}
							w.visit(m.Type)
						}
					default:
						w.visit(s.Type)
					}
				case *ast.ValueSpec:
					w.from = nil
					for _, n := range s.Names {
						if d := w.declOf(n); d != nil {
							w.from = d
							break
						}
					}
					if s.Type != nil {
						w.visit(s.Type)
					}
					for _, v := range s.Values {
						w.visit(v)
					}
				}
			}
		}
	}
}

func (w *walker) findExtra(d *ast.FuncDecl) *declRec {
	file, line, _ := w.e.rel(w.u, d.Pos())
	for _, x := range w.e.extraDecls {
		if x.Repo == w.u.root.name && x.File == file && x.Line == line && x.QN == d.Name.Name {
			return x
		}
	}
	return nil
}

func (w *walker) visit(n ast.Node) {
	ast.Inspect(n, func(n ast.Node) bool {
		if n == nil {
			w.stack = w.stack[:len(w.stack)-1]
			return false
		}
		w.stack = append(w.stack, n)
		switch x := n.(type) {
		case *ast.CallExpr:
			if id := callee(x.Fun); id != nil {
				w.calls[id] = true
			}
		case *ast.Ident:
			w.ident(x)
		}
		return true
	})
}

// callee: the identifier a call names: f in f(), x.f(), f[T](), (f)().
func callee(fun ast.Expr) *ast.Ident {
	for {
		switch t := fun.(type) {
		case *ast.ParenExpr:
			fun = t.X
		case *ast.IndexExpr:
			fun = t.X
		case *ast.IndexListExpr:
			fun = t.X
		case *ast.SelectorExpr:
			return t.Sel
		case *ast.Ident:
			return t
		default:
			return nil
		}
	}
}

func (w *walker) parent() ast.Node {
	if len(w.stack) < 2 {
		return nil
	}
	return w.stack[len(w.stack)-2]
}

func (w *walker) ident(id *ast.Ident) {
	obj := w.u.info.Uses[id]
	if obj == nil {
		return
	}
	file, line, col := w.e.rel(w.u, id.Pos())
	if d := w.e.decls[origin(obj)]; d != nil {
		use := "value"
		if _, ok := obj.(*types.TypeName); ok {
			use = "type"
		} else if w.calls[id] {
			use = "call"
		}
		rec := useRec{T: "use", Repo: w.u.root.name, File: file, Line: line, Col: col, Name: id.Name,
			Pkg: d.Pkg, QN: d.QN, Kind: d.Kind, Detail: d.Detail, Use: use, Form: w.form(id, obj)}
		if w.from != nil {
			rec.FromKind, rec.FromQN, rec.FromLine = w.from.Kind, w.from.QN, w.from.Line
		} else {
			rec.FromKind, rec.FromQN, rec.FromLine = "module", w.fileRel, 1
		}
		w.e.nUses++
		w.e.write(rec)
		return
	}
	if !w.e.others || !w.names[id.Name] {
		return
	}
	w.e.nOthers++
	w.e.write(otherRec{T: "other", Repo: w.u.root.name, File: file, Line: line, Col: col, Name: id.Name, Obj: w.category(obj)})
}

// form describes the syntax of a use (README.md, "Forms").
func (w *walker) form(id *ast.Ident, obj types.Object) string {
	if w.embedded[id] {
		return "embedded-field-type"
	}
	if w.recv[id] {
		return "receiver-type"
	}
	switch p := w.parent().(type) {
	case *ast.SelectorExpr:
		if p.Sel != id {
			break
		}
		if x, ok := p.X.(*ast.Ident); ok {
			if _, pkg := w.u.info.Uses[x].(*types.PkgName); pkg {
				return "qualified"
			}
		}
		sel := w.u.info.Selections[p]
		if sel == nil {
			return "selector-unrecorded"
		}
		var f string
		switch sel.Kind() {
		case types.FieldVal:
			f = "field"
		case types.MethodVal:
			f = "method"
			if types.IsInterface(sel.Recv()) {
				f = "interface-method"
				if d := w.e.decls[origin(obj)]; d != nil && isNamed(sel.Recv()) && !declaredOn(sel.Recv(), d) {
					f += "+via embedded interface"
				}
			}
		case types.MethodExpr:
			f = "method-expr"
		}
		if len(sel.Index()) > 1 {
			f += "+promoted"
		}
		if _, tp := sel.Recv().(*types.TypeParam); tp {
			f += "+typeparam-recv"
		} else if ptr, ok := sel.Recv().(*types.Pointer); ok {
			if _, tp := ptr.Elem().(*types.TypeParam); tp {
				f += "+typeparam-recv"
			}
		}
		return f + " on " + w.operand(p.X)
	case *ast.KeyValueExpr:
		if p.Key == id && len(w.stack) >= 3 {
			if lit, ok := w.stack[len(w.stack)-3].(*ast.CompositeLit); ok {
				if _, isField := obj.(*types.Var); isField && obj.(*types.Var).IsField() {
					if lit.Type == nil {
						return "literal-key (elided type)"
					}
					return "literal-key"
				}
			}
		}
	}
	return "identifier"
}

// operand describes a selector's operand.
func (w *walker) operand(x ast.Expr) string {
	switch t := x.(type) {
	case *ast.Ident:
		switch o := w.u.info.Uses[t].(type) {
		case *types.Var:
			if o.Pkg() != nil && o.Parent() == o.Pkg().Scope() {
				return "package var"
			}
			if form, ok := w.localForm[o.Pos()]; ok {
				return "local (" + form + ")"
			}
			return "local"
		case *types.TypeName:
			return "type name"
		case *types.Const:
			return "const"
		}
		return "identifier"
	case *ast.CallExpr:
		if tv, ok := t.Fun.(*ast.Ident); ok {
			if _, isType := w.u.info.Uses[tv].(*types.TypeName); isType {
				return "conversion"
			}
		}
		return "call result"
	case *ast.SelectorExpr:
		return "selector chain"
	case *ast.IndexExpr, *ast.IndexListExpr:
		return "index expression"
	case *ast.TypeAssertExpr:
		return "type assertion"
	case *ast.CompositeLit:
		return "composite literal"
	case *ast.UnaryExpr:
		return "unary expression"
	case *ast.StarExpr:
		return "dereference"
	case *ast.ParenExpr:
		return "(" + w.operand(t.X) + ")"
	case *ast.SliceExpr:
		return "slice expression"
	}
	return "expression"
}

func (w *walker) category(obj types.Object) string {
	measured := func(p *types.Package) bool {
		if p == nil {
			return false
		}
		u, ok := w.e.l.byPath[p.Path()]
		return ok && u.measured
	}
	if _, pkgName := obj.(*types.PkgName); !pkgName && obj.Pkg() != nil && !measured(obj.Pkg()) {
		return "object of unmeasured package " + obj.Pkg().Path()
	}
	switch o := obj.(type) {
	case *types.PkgName:
		return "package name"
	case *types.Builtin, *types.Nil:
		return "builtin"
	case *types.Label:
		return "label"
	case *types.TypeName:
		if o.Pkg() == nil {
			return "builtin type"
		}
		if _, tp := o.Type().(*types.TypeParam); tp {
			return "type parameter"
		}
		if o.Parent() != o.Pkg().Scope() {
			return "local type"
		}
		return "unmodeled type"
	case *types.Var:
		if o.IsField() {
			return "field of an unnamed or nested struct type"
		}
		if o.Pkg() != nil && o.Parent() == o.Pkg().Scope() {
			return "unmodeled package var"
		}
		return "local variable or parameter"
	case *types.Const:
		if o.Pkg() == nil {
			return "builtin"
		}
		if o.Parent() != o.Pkg().Scope() {
			return "local const"
		}
		return "unmodeled const"
	case *types.Func:
		if o.Pkg() == nil {
			return "builtin method"
		}
		if sig, ok := o.Type().(*types.Signature); ok && sig.Recv() != nil {
			return "method of an unmodeled type"
		}
		return "unmodeled func"
	}
	return fmt.Sprintf("%T", obj)
}

// collectLocalForms records how each local variable of the file is declared, so that a selector
// on it can say where its type would have to come from.
func (w *walker) collectLocalForms(f *ast.File) {
	set := func(id *ast.Ident, form string) {
		if id != nil && id.Name != "_" {
			w.localForm[id.Pos()] = form
		}
	}
	fields := func(l *ast.FieldList, form string) {
		if l == nil {
			return
		}
		for _, fld := range l.List {
			for _, n := range fld.Names {
				set(n, form)
			}
		}
	}
	typeSwitchHeader := map[ast.Stmt]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncDecl:
			fields(x.Recv, "receiver")
		case *ast.FuncType:
			fields(x.Params, "parameter")
			fields(x.Results, "named result")
		case *ast.AssignStmt:
			if x.Tok != token.DEFINE || typeSwitchHeader[x] {
				break
			}
			for i, l := range x.Lhs {
				id, _ := l.(*ast.Ident)
				switch {
				case len(x.Rhs) == len(x.Lhs):
					set(id, ":= "+w.describe(x.Rhs[i]))
				case len(x.Rhs) == 1:
					set(id, ":= "+w.describeMulti(x.Rhs[0], i))
				}
			}
		case *ast.RangeStmt:
			if x.Tok != token.DEFINE {
				break
			}
			k, _ := x.Key.(*ast.Ident)
			v, _ := x.Value.(*ast.Ident)
			set(k, "range key")
			set(v, "range value over "+w.describe(x.X))
		case *ast.TypeSwitchStmt:
			typeSwitchHeader[x.Assign] = true
			if a, ok := x.Assign.(*ast.AssignStmt); ok && len(a.Lhs) == 1 {
				if id, ok := a.Lhs[0].(*ast.Ident); ok {
					// The implicit per-clause objects are declared at the header's identifier.
					set(id, "type switch binding")
				}
			}
		case *ast.DeclStmt:
			g, ok := x.Decl.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				break
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, n := range vs.Names {
					switch {
					case vs.Type != nil:
						set(n, "var with a written type")
					case len(vs.Values) == len(vs.Names):
						set(n, "var = "+w.describe(vs.Values[i]))
					case len(vs.Values) == 1:
						set(n, "var = "+w.describeMulti(vs.Values[0], i))
					}
				}
			}
		}
		return true
	})
}

func (w *walker) describeMulti(x ast.Expr, i int) string {
	switch t := unparen(x).(type) {
	case *ast.TypeAssertExpr:
		return "comma-ok type assertion"
	case *ast.IndexExpr:
		return "comma-ok map index"
	case *ast.UnaryExpr:
		if t.Op == token.ARROW {
			return "comma-ok channel receive"
		}
	case *ast.CallExpr:
		return fmt.Sprintf("result %d of %s", i, w.describe(t))
	}
	return "multi-value " + w.describe(x)
}

func unparen(x ast.Expr) ast.Expr {
	for {
		p, ok := x.(*ast.ParenExpr)
		if !ok {
			return x
		}
		x = p.X
	}
}

// describe names the form of an initialising expression.
func (w *walker) describe(x ast.Expr) string {
	switch t := unparen(x).(type) {
	case *ast.CallExpr:
		fun := unparen(t.Fun)
		switch f := fun.(type) {
		case *ast.Ident:
			switch o := w.u.info.Uses[f].(type) {
			case *types.TypeName:
				return "conversion"
			case *types.Builtin:
				return o.Name() + "(…)"
			case *types.Func:
				return "call of a func"
			case *types.Var:
				return "call of a func value"
			}
		case *ast.SelectorExpr:
			if id, ok := f.X.(*ast.Ident); ok {
				if _, pkg := w.u.info.Uses[id].(*types.PkgName); pkg {
					switch w.u.info.Uses[f.Sel].(type) {
					case *types.TypeName:
						return "conversion"
					case *types.Var:
						return "call of a func value"
					}
					return "call of an imported func"
				}
			}
			if sel := w.u.info.Selections[f]; sel != nil && sel.Kind() == types.FieldVal {
				return "call of a func-valued field"
			}
			return "method call"
		case *ast.IndexExpr, *ast.IndexListExpr:
			return "call of a generic func"
		case *ast.ArrayType, *ast.StarExpr, *ast.MapType, *ast.ChanType, *ast.FuncType, *ast.InterfaceType:
			return "conversion"
		case *ast.FuncLit:
			return "call of a func literal"
		}
		return "call"
	case *ast.TypeAssertExpr:
		return "type assertion"
	case *ast.CompositeLit:
		return "composite literal"
	case *ast.UnaryExpr:
		switch t.Op {
		case token.AND:
			if _, ok := unparen(t.X).(*ast.CompositeLit); ok {
				return "&composite literal"
			}
			return "&expression"
		case token.ARROW:
			return "channel receive"
		}
		return "unary expression"
	case *ast.IndexExpr, *ast.IndexListExpr:
		return "index expression"
	case *ast.SliceExpr:
		return "slice expression"
	case *ast.SelectorExpr:
		if id, ok := t.X.(*ast.Ident); ok {
			if _, pkg := w.u.info.Uses[id].(*types.PkgName); pkg {
				return "imported value"
			}
		}
		return "selector"
	case *ast.Ident:
		switch o := w.u.info.Uses[t].(type) {
		case *types.Var:
			if o.Pkg() != nil && o.Parent() == o.Pkg().Scope() {
				return "package var"
			}
			return "another local"
		case *types.Const:
			return "constant"
		case *types.Nil:
			return "nil"
		}
		return "identifier"
	case *ast.StarExpr:
		return "dereference"
	case *ast.FuncLit:
		return "func literal"
	case *ast.BinaryExpr:
		return "binary expression"
	case *ast.BasicLit:
		return "literal"
	}
	return "expression"
}

func isNamed(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	_, ok := t.(*types.Named)
	return ok
}

// declaredOn: whether the interface method d is declared directly by the named interface type
// t (or *t), rather than by an interface t embeds.
func declaredOn(t types.Type, d *declRec) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	if !ok {
		return false
	}
	n = n.Origin()
	owner := strings.SplitN(d.QN, ".", 2)[0]
	return n.Obj().Name() == owner && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == d.Pkg
}
