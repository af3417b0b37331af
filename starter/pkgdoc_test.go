package starter

import (
	"go/build/constraint"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// docNotInDocGo lists the packages whose one package doc is not yet in a
// doc.go of its own. It only shrinks: a package that no longer needs to be
// listed fails the test too.
var docNotInDocGo = []string{}

// TestEveryPackageHasExactlyOnePackageDoc walks the module: each package
// states what it does and what it guarantees in one place, a doc.go
// without a build constraint, so that the doc shows on every platform.
func TestEveryPackageHasExactlyOnePackageDoc(t *testing.T) {
	root := ".."
	docs := map[string][]string{}    // directory → files with a package doc
	constrained := map[string]bool{} // directory → its doc.go has a build constraint
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		dir := filepath.Dir(path)
		if _, ok := docs[dir]; !ok {
			docs[dir] = nil
		}
		if f.Doc != nil {
			docs[dir] = append(docs[dir], filepath.Base(path))
		}
		if filepath.Base(path) == "doc.go" {
			for _, g := range f.Comments {
				for _, c := range g.List {
					if c.Pos() < f.Package && constraint.IsGoBuild(c.Text) {
						constrained[dir] = true
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("not at the module root: %v", err)
	}
	for dir, files := range docs {
		rel, _ := filepath.Rel(root, dir)
		rel = filepath.ToSlash(rel)
		switch {
		case len(files) != 1:
			t.Errorf("%s: package doc in %v, want exactly one file", rel, files)
		case slices.Contains(docNotInDocGo, rel):
			if files[0] == "doc.go" {
				t.Errorf("%s: the package doc is in doc.go now; take it off docNotInDocGo", rel)
			}
		case files[0] != "doc.go":
			t.Errorf("%s: package doc in %s, want it in doc.go", rel, files[0])
		case constrained[dir]:
			t.Errorf("%s: doc.go has a build constraint; the package doc must show on every platform", rel)
		}
	}
	for _, rel := range docNotInDocGo {
		if _, ok := docs[filepath.Join(root, filepath.FromSlash(rel))]; !ok {
			t.Errorf("%s: no such package; take it off docNotInDocGo", rel)
		}
	}
}
