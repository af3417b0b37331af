package sys

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// defaultPathext is what cmd.exe uses when PATHEXT is not set.
const defaultPathext = ".com;.exe;.bat;.cmd"

// Resolve finds program as cmd.exe does, with env's PATH and PATHEXT:
// a name with a directory part is taken relative to the current
// directory, any other is looked for in the current directory (unless
// NoDefaultCurrentDirectoryInExePath is set) and then in each PATH entry.
// In each place the name is tried as it is when it has an extension, then
// with each PATHEXT extension. The error wraps ENOENT when nothing was
// found (exit 127).
func Resolve(name string, env []string) (string, error) {
	pathext, ok := LookupEnv(env, "PATHEXT")
	if !ok || pathext == "" {
		pathext = defaultPathext
	}
	var exts []string
	for _, e := range strings.Split(strings.ToLower(pathext), ";") {
		if e != "" {
			if e[0] != '.' {
				e = "." + e
			}
			exts = append(exts, e)
		}
	}
	if strings.ContainsAny(name, `\/:`) {
		if p, err := findExecutable(name, exts); err == nil {
			return filepath.Abs(p)
		}
		return "", fmt.Errorf("%w (PATHEXT %s)", syscall.ENOENT, pathext)
	}
	var dirs []string
	if _, ok := LookupEnv(env, "NoDefaultCurrentDirectoryInExePath"); !ok {
		dirs = append(dirs, ".")
	}
	path, _ := LookupEnv(env, "PATH")
	for _, dir := range filepath.SplitList(path) {
		if dir != "" {
			dirs = append(dirs, dir)
		}
	}
	for _, dir := range dirs {
		if p, err := findExecutable(filepath.Join(dir, name), exts); err == nil {
			return filepath.Abs(p)
		}
	}
	return "", fmt.Errorf("%w in PATH (PATHEXT %s)", syscall.ENOENT, pathext)
}

// findExecutable returns file itself if it has an extension and is a
// regular file, else the first of file+ext that is.
func findExecutable(file string, exts []string) (string, error) {
	if filepath.Ext(file) != "" && Executable(file) == nil {
		return file, nil
	}
	for _, e := range exts {
		if f := file + e; Executable(f) == nil {
			return f, nil
		}
	}
	return "", syscall.ENOENT
}

// Executable checks that path is a regular file, the least CreateProcess
// needs: nil, or an error that wraps ENOENT.
func Executable(path string) error {
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return syscall.ENOENT
	}
	return nil
}

// SameEnvKey reports whether a and b name the same environment variable:
// Windows names are case-insensitive, as in os/exec's dedupEnv.
func SameEnvKey(a, b string) bool { return strings.EqualFold(a, b) }
