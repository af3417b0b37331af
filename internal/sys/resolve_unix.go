//go:build unix

package sys

import (
	"cmp"
	"errors"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// defaultPath is what execvp searches when PATH is unset (glibc's
// confstr(_CS_PATH)).
const defaultPath = "/bin:/usr/bin"

// SameEnvKey reports whether a and b name the same environment variable:
// names are case-sensitive.
func SameEnvKey(a, b string) bool { return a == b }

// Resolve finds program as execvp would, with env's PATH: a name with a
// slash is taken as it is; otherwise each PATH entry is tried in order,
// an empty entry meaning the current directory (unlike exec.LookPath,
// which refuses "." entries). It returns the path, or an error that is
// ENOENT (not found, exit 127) or EACCES (found but not executable, exit
// 126). Its message says when the program is an empty name or a
// directory.
func Resolve(program string, env []string) (string, error) {
	path, pathSet := LookupEnv(env, "PATH")
	if program == "" {
		return "", errEmptyProgram
	}
	if strings.Contains(program, "/") {
		return program, Executable(program)
	}
	if !pathSet {
		path = defaultPath
	}
	var denied error
	for _, dir := range strings.Split(path, ":") {
		if dir == "" {
			dir = "."
		}
		candidate := dir + "/" + program
		err := Executable(candidate)
		if err == nil {
			return candidate, nil
		}
		if denied == nil && errors.Is(err, syscall.EACCES) {
			denied = err
		}
	}
	return "", cmp.Or(denied, error(syscall.ENOENT))
}

// errEmptyProgram is Resolve's error for an empty name: ENOENT, as execvp
// answers, with a message that says so.
var errEmptyProgram = &resolveError{"an empty PROGRAM names no file", syscall.ENOENT}

// errIsDirectory is Resolve's error for a directory: EACCES, as execve
// answers, with a message that says what it is.
var errIsDirectory = &resolveError{"is a directory, not a program", syscall.EACCES}

// resolveError is an errno with a message of its own.
type resolveError struct {
	msg   string
	errno syscall.Errno
}

func (e *resolveError) Error() string { return e.msg }
func (e *resolveError) Unwrap() error { return e.errno }

// Executable checks what execve would check first: the file exists, is
// not a directory, and is executable by the effective user.
func Executable(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		var errno syscall.Errno
		if errors.As(err, &errno) && errno != syscall.ENOENT && errno != syscall.ENOTDIR {
			return syscall.EACCES
		}
		return syscall.ENOENT
	}
	if st.IsDir() {
		return errIsDirectory
	}
	if err := Faccessat(AT_FDCWD, path, unix.X_OK, unix.AT_EACCESS); err != nil {
		return syscall.EACCES
	}
	return nil
}
