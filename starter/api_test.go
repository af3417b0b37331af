package starter

import (
	"bufio"
	"bytes"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// apiPackages are the packages whose exported names are the product's
// API for callers outside this module.
var apiPackages = []string{
	"github.com/session-starter/session-starter/starter",
	"github.com/session-starter/session-starter/starter/launch",
	"github.com/session-starter/session-starter/starter/contain",
}

// TestTheAPINamesNoInternalType: no exported name of the API packages —
// a function's parameters and results, a type's exported fields and
// methods, down to the types they name — has a type of an internal
// package, which a caller outside the module cannot name (a
// starter.Result whose End was an internal end.Report, say). The types
// are read from the compiler's export data, so every exported name is
// seen, on every platform's build.
func TestTheAPINamesNoInternalType(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the Linux run lists every platform's API")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no go command in PATH to read the export data with")
		}
		t.Skip("no go command in PATH to read the export data with")
	}
	for _, goos := range []string{"linux", "darwin", "freebsd", "windows"} {
		cmd := exec.Command(goBin, append([]string{"list", "-export", "-deps", "-f", "{{.ImportPath}} {{.Export}}"}, apiPackages...)...)
		cmd.Env = append(os.Environ(), "GOOS="+goos, "CGO_ENABLED=0")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("GOOS=%s go list -export: %v", goos, err)
		}
		exports := map[string]string{}
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			if path, file, ok := strings.Cut(sc.Text(), " "); ok {
				exports[path] = file
			}
		}
		imp := importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
			return os.Open(exports[path])
		})
		for _, path := range apiPackages {
			pkg, err := imp.Import(path)
			if err != nil {
				t.Fatalf("GOOS=%s: import %s: %v", goos, path, err)
			}
			w := apiWalk{t: t, goos: goos, seen: map[types.Type]bool{}}
			for _, name := range pkg.Scope().Names() {
				if obj := pkg.Scope().Lookup(name); obj.Exported() {
					w.walk(pkg.Name()+"."+name, obj.Type())
				}
			}
		}
	}
}

// apiWalk walks the types an exported name shows a caller.
type apiWalk struct {
	t    *testing.T
	goos string
	seen map[types.Type]bool
}

func (w apiWalk) walk(where string, typ types.Type) {
	if w.seen[typ] {
		return
	}
	w.seen[typ] = true
	switch typ := typ.(type) {
	case *types.Named:
		obj := typ.Obj()
		if obj.Pkg() == nil {
			return // error
		}
		path := obj.Pkg().Path()
		if strings.Contains(path+"/", "/internal/") {
			w.t.Errorf("GOOS=%s: %s has the type %s of an internal package", w.goos, where, typ)
			return
		}
		if !strings.HasPrefix(path, "github.com/session-starter/session-starter/") {
			return // the standard library's and other modules' types are theirs
		}
		for i := range typ.NumMethods() {
			if m := typ.Method(i); m.Exported() {
				w.walk(where+"."+m.Name(), m.Type())
			}
		}
		w.walk(where, typ.Underlying())
	case *types.Alias:
		w.walk(where, types.Unalias(typ))
	case *types.Struct:
		for i := range typ.NumFields() {
			if f := typ.Field(i); f.Exported() {
				w.walk(where+"."+f.Name(), f.Type())
			}
		}
	case *types.Pointer:
		w.walk(where, typ.Elem())
	case *types.Slice:
		w.walk(where, typ.Elem())
	case *types.Array:
		w.walk(where, typ.Elem())
	case *types.Chan:
		w.walk(where, typ.Elem())
	case *types.Map:
		w.walk(where, typ.Key())
		w.walk(where, typ.Elem())
	case *types.Signature:
		for _, tuple := range []*types.Tuple{typ.Params(), typ.Results()} {
			for i := range tuple.Len() {
				w.walk(where, tuple.At(i).Type())
			}
		}
	case *types.Interface:
		for i := range typ.NumMethods() {
			if m := typ.Method(i); m.Exported() {
				w.walk(where+"."+m.Name(), m.Type())
			}
		}
	}
}
