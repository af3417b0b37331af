package main

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// readmePackages are the packages README.md's Go examples name, by the
// name they are used with.
var readmePackages = map[string]string{
	"context": "context",
	"time":    "time",
	"launch":  "github.com/session-starter/session-starter/starter/launch",
	"contain": "github.com/session-starter/session-starter/starter/contain",
	"starter": "github.com/session-starter/session-starter/starter",
}

// readmeFree are the names README.md's Go examples use without defining
// them, with their types: what the surrounding code would have.
var readmeFree = "ctx context.Context, toolCommand string"

// TestTheReadmesGoExamplesCompile: each ```go block of README.md, as the
// body of a function that has ctx and the other free names of the
// examples, compiles against this module (go build with an overlay: no
// file is written into the tree; built, which vet cannot do from an
// overlay alone). A renamed function, field or package
// fails here, not in a user's editor.
func TestTheReadmesGoExamplesCompile(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?ms)^```go\n(.*?)^```$").FindAllStringSubmatch(string(b), -1)
	if len(blocks) == 0 {
		t.Fatal("README.md has no ```go block")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	replace := map[string]string{}
	for i, m := range blocks {
		src := readmeFunc(t, i, m[1])
		file := filepath.Join(dir, "example.go")
		file = strings.TrimSuffix(file, ".go") + string(rune('a'+i)) + ".go"
		if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		replace[filepath.Join(root, "internal", "readmeexamples", filepath.Base(file))] = file
	}
	overlay, _ := json.Marshal(map[string]any{"Replace": replace})
	ov := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(ov, overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "build", "-overlay", ov, "./internal/readmeexamples")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("README.md's Go examples do not compile: %v\n%s", err, out)
	}
}

// readmeFunc is the source of a file holding block i of README.md as the
// body of a function: the packages it names imported, every variable it
// defines used, and a return at its end.
func readmeFunc(t *testing.T, i int, body string) string {
	t.Helper()
	fn := "func example" + string(rune('A'+i)) + "(" + readmeFree + ") error {\n" + body + "\n"
	f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+fn+"return nil\n}\n", 0)
	if err != nil {
		t.Fatalf("README.md's Go block %d does not parse as a function body: %v\n%s", i+1, err, body)
	}
	defined := map[string]bool{}
	used := map[string]bool{"context": true} // ctx's type
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.AssignStmt:
			if x.Tok == token.DEFINE {
				for _, l := range x.Lhs {
					if id, ok := l.(*ast.Ident); ok && id.Name != "_" {
						defined[id.Name] = true
					}
				}
			}
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok && readmePackages[id.Name] != "" {
				used[id.Name] = true
			}
		}
		return true
	})
	var imports, uses []string
	for name := range used {
		imports = append(imports, "\t"+`"`+readmePackages[name]+`"`)
	}
	for name := range defined {
		uses = append(uses, "_ = "+name)
	}
	sort.Strings(imports)
	sort.Strings(uses)
	return "package readmeexamples\n\nimport (\n" + strings.Join(imports, "\n") + "\n)\n\n" +
		fn + strings.Join(uses, "\n") + "\nreturn nil\n}\n"
}
