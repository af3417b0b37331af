package starter

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// stillDirect lists the files that still call golang.org/x/sys directly
// instead of through internal/sys. It only shrinks: a file that no longer
// needs to be listed fails the test too, so that the list stays the work
// left and no more.
var stillDirect = []string{}

// TestSyscallsGoThroughInternalSys: golang.org/x/sys/unix and
// golang.org/x/sys/windows are imported by internal/sys (and its
// subpackages) only — besides the test helpers of internal/testproc, the
// benchmark programs under scripts/, and the files of stillDirect.
func TestSyscallsGoThroughInternalSys(t *testing.T) {
	root := ".."
	var direct []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != root ||
				rel == filepath.Join("internal", "sys") || rel == filepath.Join("internal", "testproc") || rel == "scripts" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p == "golang.org/x/sys/unix" || p == "golang.org/x/sys/windows" {
				direct = append(direct, filepath.ToSlash(rel))
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range direct {
		if !slices.Contains(stillDirect, f) {
			t.Errorf("%s imports golang.org/x/sys: make the call through internal/sys", f)
		}
	}
	for _, f := range stillDirect {
		if !slices.Contains(direct, f) {
			t.Errorf("%s no longer imports golang.org/x/sys: take it off stillDirect", f)
		}
	}
}

// TestCodeWithoutARuntimeStaysInInternalSys: unsafe, the nosplit and
// linkname directives, syscall.RawSyscall* and assembly (.s files) appear only
// under internal/sys (the one place for code that runs without the Go
// runtime, rawfork, and for the system calls) — in every file of the
// module but tests and the benchmark programs under scripts/.
func TestCodeWithoutARuntimeStaysInInternalSys(t *testing.T) {
	root := ".."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != root ||
				rel == filepath.Join("internal", "sys") || rel == "scripts" {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".s") {
			t.Errorf("%s: assembly outside internal/sys", rel)
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		for _, bad := range runtimeLess(t, path, nil) {
			t.Errorf("%s: %s outside internal/sys", rel, bad)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// runtimeLess lists what the Go file at path (or src, when not nil) uses
// of unsafe, nosplit, linkname and raw system calls.
func runtimeLess(t *testing.T, path string, src []byte) []string {
	t.Helper()
	var text any
	if src != nil {
		text = src
	}
	f, err := parser.ParseFile(token.NewFileSet(), path, text, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == "unsafe" {
			found = append(found, `import "unsafe"`)
		}
	}
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			for _, directive := range []string{"//go:nosplit", "//go:linkname"} {
				if strings.HasPrefix(c.Text, directive) {
					found = append(found, directive)
				}
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && strings.HasPrefix(sel.Sel.Name, "RawSyscall") {
			found = append(found, sel.Sel.Name)
		}
		return true
	})
	return found
}

// TestTheLayoutCheckSeesWhatItForbids: the check above finds each thing it
// forbids in a file that uses it.
func TestTheLayoutCheckSeesWhatItForbids(t *testing.T) {
	src := "package bad\n\nimport (\n\t\"syscall\"\n\t\"unsafe\"\n)\n\n//go:linkname x y\nvar x int\n\n//go:nosplit\nfunc f() { syscall.RawSyscall(0, 0, 0, 0); _ = unsafe.Pointer(nil) }\n"
	got := runtimeLess(t, "bad.go", []byte(src))
	for _, want := range []string{`import "unsafe"`, "//go:nosplit", "//go:linkname", "RawSyscall"} {
		if !slices.Contains(got, want) {
			t.Errorf("runtimeLess(%q) = %q, want %q among them", src, got, want)
		}
	}
}

// TestInternalImportsNoPublicPackage: imports run one way, from the
// public packages (cmd, starter, gate, guard) down to internal/: no
// package under internal/ imports a package of this module outside
// internal/, on any platform (every file is read, whatever its build
// constraint). The one package above them is internal/exit, the end of a
// session-starter process: it wraps starter, for the command and a Go
// Engine's requested form, and is for no library. The one public package
// they may import is starter/launch, for the records the mechanisms fill
// (its Usage): it imports nothing of this module
// (TestLaunchImportsNothingOfTheSupervisor), so no cycle can close.
func TestInternalImportsNoPublicPackage(t *testing.T) {
	const module = "github.com/session-starter/session-starter"
	root := filepath.Join("..", "internal")
	seen := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || path == filepath.Join(root, "exit") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		seen++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if (p == module || strings.HasPrefix(p, module+"/")) && !strings.HasPrefix(p, module+"/internal/") && p != module+"/starter/launch" {
				t.Errorf("%s imports %s: internal/ imports no public package", filepath.ToSlash(path), p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen == 0 {
		t.Fatalf("no Go file under %s", root)
	}
}
