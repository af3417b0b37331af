package starter

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryPackageHasExactlyOnePackageDoc walks the module: each package
// states what it does and what it guarantees in one place.
func TestEveryPackageHasExactlyOnePackageDoc(t *testing.T) {
	root := ".."
	docs := map[string][]string{} // directory → files with a package doc
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
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("not at the module root: %v", err)
	}
	for dir, files := range docs {
		if len(files) != 1 {
			t.Errorf("%s: package doc in %v, want exactly one file", dir, files)
		}
	}
}
