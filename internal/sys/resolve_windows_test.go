package sys

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/session-starter/session-starter/internal/wire"
)

func TestResolveFollowsPATHEXTInTheCurrentDirectoryThenPATH(t *testing.T) {
	dir, err := os.MkdirTemp("", "sys-resolve-")
	if err != nil {
		t.Fatal(err)
	}
	// Not t.TempDir: Go's RemoveAll fails under Wine.
	t.Cleanup(func() { removeTree(t, dir) })
	bin := filepath.Join(dir, "bin")
	cwd := filepath.Join(dir, "cwd")
	for _, d := range []string{bin, cwd} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{
		filepath.Join(bin, "tool.cmd"), filepath.Join(bin, "other.exe"), filepath.Join(bin, "plain"),
		filepath.Join(cwd, "other.bat"),
	} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(cwd)
	env := []string{"Path=" + bin, "PATHEXT=.EXE;.CMD;.BAT"}
	for _, tt := range []struct {
		name, program string
		env           []string
		want          string // "" for not found
	}{
		{"extension from PATHEXT", "tool", env, filepath.Join(bin, "tool.cmd")},
		{"name with its extension", "tool.cmd", env, filepath.Join(bin, "tool.cmd")},
		{"current directory first", "other", env, filepath.Join(cwd, "other.bat")},
		{"current directory skipped on request", "other", append(env, "NoDefaultCurrentDirectoryInExePath=1"), filepath.Join(bin, "other.exe")},
		{"no extension and none of PATHEXT", "plain", env, ""},
		{"extension not in PATHEXT", "tool", []string{"PATH=" + bin, "PATHEXT=.EXE"}, ""},
		{"missing", "nothing", env, ""},
		{"relative path", `..\bin\tool`, env, filepath.Join(bin, "tool.cmd")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Resolve(tt.program, tt.env)
			if tt.want == "" {
				if !errors.Is(err, fs.ErrNotExist) || wire.ExitStatusFor(err) != wire.ExitNotFound {
					t.Errorf("Resolve(%q) = %q, %v; want not found", tt.program, got, err)
				}
				return
			}
			if err != nil || !strings.EqualFold(got, tt.want) {
				t.Errorf("Resolve(%q) = %q, %v; want %q", tt.program, got, err, tt.want)
			}
		})
	}
}

// removeTree removes a test's directory file by file.
func removeTree(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if e.IsDir() {
			removeTree(t, p)
			continue
		}
		if err := os.Remove(p); err != nil {
			t.Errorf("remove %s: %v", p, err)
		}
	}
	if err := os.Remove(dir); err != nil {
		t.Errorf("remove %s: %v", dir, err)
	}
}
