//go:build unix

package sys

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// resolveTree builds, under a fresh directory:
//
//	exe/prog      executable
//	exe2/prog     executable
//	plain/prog    not executable
//	dir/prog/     a directory
//	empty/        nothing
//
// and returns the directory.
func resolveTree(t *testing.T) string {
	t.Helper()
	base := t.TempDir()
	write := func(rel string, mode os.FileMode) {
		p := filepath.Join(base, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\nexit 0\n"), mode); err != nil {
			t.Fatal(err)
		}
		// WriteFile's mode is filtered by the umask.
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	write("exe/prog", 0o755)
	write("exe2/prog", 0o755)
	write("plain/prog", 0o644)
	for _, d := range []string{"dir/prog", "empty"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return base
}

func TestResolveFindsProgramsAsExecvpWould(t *testing.T) {
	base := resolveTree(t)
	in := func(rel ...string) string { return filepath.Join(append([]string{base}, rel...)...) }
	tests := []struct {
		name    string
		program string
		path    string
		pathSet bool
		want    string
		wantErr error
	}{
		{"slash name that is executable", in("exe", "prog"), "", false, in("exe", "prog"), nil},
		{"slash name ignores PATH", in("exe", "prog"), in("empty"), true, in("exe", "prog"), nil},
		{"slash name not found", in("exe", "nope"), "", false, "", syscall.ENOENT},
		{"slash name through a file", in("exe", "prog", "x"), "", false, "", syscall.ENOENT},
		{"slash name of a directory", in("dir", "prog"), "", false, "", syscall.EACCES},
		{"slash name not executable", in("plain", "prog"), "", false, "", syscall.EACCES},
		{"empty name", "", in("exe"), true, "", syscall.ENOENT},
		{"not found in PATH", "prog", in("empty") + ":" + in("nope"), true, "", syscall.ENOENT},
		{"first PATH entry wins", "prog", in("exe") + ":" + in("exe2"), true, in("exe", "prog"), nil},
		{"PATH order is kept", "prog", in("exe2") + ":" + in("exe"), true, in("exe2", "prog"), nil},
		{"found in a later entry", "prog", in("empty") + ":" + in("exe2"), true, in("exe2", "prog"), nil},
		{"non-executable match skipped for a later executable one", "prog", in("plain") + ":" + in("exe"), true, in("exe", "prog"), nil},
		{"directory match skipped for a later executable one", "prog", in("dir") + ":" + in("exe"), true, in("exe", "prog"), nil},
		{"only a non-executable match", "prog", in("empty") + ":" + in("plain"), true, "", syscall.EACCES},
		{"only a directory match", "prog", in("dir"), true, "", syscall.EACCES},
		{"non-executable match and not found", "prog", in("plain") + ":" + in("empty"), true, "", syscall.EACCES},
		{"PATH unset searches /bin:/usr/bin", "sh", in("exe"), false, "/bin/sh", nil},
		{"PATH unset ignores the path given", "prog", in("exe"), false, "", syscall.ENOENT},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Resolve(tt.program, pathEnv(tt.path, tt.pathSet))
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Resolve(%q, %q, %v) = %q, %v; want error %v", tt.program, tt.path, tt.pathSet, got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Resolve(%q, %q, %v) = %q, %v; want %q, nil", tt.program, tt.path, tt.pathSet, got, err, tt.want)
			}
		})
	}
}

// An empty PATH entry, leading, trailing, in the middle or the whole of a
// set but empty PATH, is the current directory, as for execvp (and unlike
// exec.LookPath, which refuses it).
func TestResolveTakesAnEmptyPathEntryAsTheCurrentDirectory(t *testing.T) {
	base := resolveTree(t)
	t.Chdir(filepath.Join(base, "exe"))
	empty := filepath.Join(base, "empty")
	for _, path := range []string{":" + empty, empty + ":", empty + "::" + empty, ""} {
		got, err := Resolve("prog", pathEnv(path, true))
		if err != nil || got != "./prog" {
			t.Errorf("Resolve(prog, %q, true) in a directory holding prog = %q, %v; want %q, nil", path, got, err, "./prog")
		}
	}
	// A relative name with a slash is taken as it is, from the current
	// directory.
	t.Chdir(base)
	if got, err := Resolve("exe/prog", nil); err != nil || got != "exe/prog" {
		t.Errorf("Resolve(exe/prog) = %q, %v; want %q, nil", got, err, "exe/prog")
	}
	// An empty entry does not find a program the current directory lacks.
	if got, err := Resolve("prog", pathEnv(":", true)); !errors.Is(err, syscall.ENOENT) {
		t.Errorf("Resolve(prog, %q, true) in a directory without prog = %q, %v; want ENOENT", ":", got, err)
	}
}

// A directory and an empty name are EACCES and ENOENT, as execve and
// execvp answer, with messages that say what they are.
func TestResolveSaysADirectoryOrAnEmptyNameIsOne(t *testing.T) {
	base := resolveTree(t)
	for _, tt := range []struct {
		program, path string
		errno         syscall.Errno
		message       string
	}{
		{filepath.Join(base, "dir", "prog"), "", syscall.EACCES, "is a directory, not a program"},
		{"prog", filepath.Join(base, "dir"), syscall.EACCES, "is a directory, not a program"},
		{"prog", filepath.Join(base, "plain") + ":" + filepath.Join(base, "dir"), syscall.EACCES, "permission denied"},
		{"", filepath.Join(base, "exe"), syscall.ENOENT, "an empty PROGRAM names no file"},
	} {
		_, err := Resolve(tt.program, pathEnv(tt.path, true))
		if !errors.Is(err, tt.errno) || err.Error() != tt.message {
			t.Errorf("Resolve(%q, %q) = %v; want %q, which is %v", tt.program, tt.path, err, tt.message, tt.errno)
		}
	}
}

// pathEnv is an environment whose PATH is path, or that has no PATH
// (set false).
func pathEnv(path string, set bool) []string {
	if !set {
		return []string{"HOME=/"}
	}
	return []string{"PATH=/elsewhere", "PATH=" + path}
}
