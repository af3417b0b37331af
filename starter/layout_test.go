package starter

import (
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

// TestInternalImportsNoPublicPackage: imports run one way, from the
// public packages (cmd, starter, gate, guard) down to internal/: no
// package under internal/ imports a package of this module outside
// internal/, on any platform (every file is read, whatever its build
// constraint). What wraps a public package — the process's end wraps
// starter — lives above it (starter/exit), not in internal/.
func TestInternalImportsNoPublicPackage(t *testing.T) {
	const module = "github.com/session-starter/session-starter"
	root := filepath.Join("..", "internal")
	seen := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") {
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
			if (p == module || strings.HasPrefix(p, module+"/")) && !strings.HasPrefix(p, module+"/internal/") {
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
