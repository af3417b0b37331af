//go:build unix

package starter

import (
	"errors"
	"os"
	"strings"
	"syscall"

	"github.com/session-starter/session-starter/internal/sys"
)

// defaultPath is what execvp searches when PATH is unset (glibc's
// confstr(_CS_PATH)).
const defaultPath = "/bin:/usr/bin"

// Resolve finds program as execvp would: a name with a slash is taken as
// it is; otherwise each PATH entry is tried in order, an empty entry
// meaning the current directory (unlike exec.LookPath, which refuses "."
// entries). It returns the path, or ENOENT (not found, exit 127) or EACCES
// (found but not executable, exit 126).
func Resolve(program, path string, pathSet bool) (string, error) {
	if program == "" {
		return "", syscall.ENOENT
	}
	if strings.Contains(program, "/") {
		return program, executable(program)
	}
	if !pathSet {
		path = defaultPath
	}
	denied := false
	for _, dir := range strings.Split(path, ":") {
		if dir == "" {
			dir = "."
		}
		candidate := dir + "/" + program
		err := executable(candidate)
		if err == nil {
			return candidate, nil
		}
		if errors.Is(err, syscall.EACCES) {
			denied = true
		}
	}
	if denied {
		return "", syscall.EACCES
	}
	return "", syscall.ENOENT
}

// executable checks what execve would check first: the file exists, is
// not a directory, and is executable by the effective user.
func executable(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		var errno syscall.Errno
		if errors.As(err, &errno) && errno != syscall.ENOENT && errno != syscall.ENOTDIR {
			return syscall.EACCES
		}
		return syscall.ENOENT
	}
	if st.IsDir() {
		return syscall.EACCES
	}
	if err := sys.Faccessat(sys.AT_FDCWD, path, sys.X_OK, sys.AT_EACCESS); err != nil {
		return syscall.EACCES
	}
	return nil
}

// lookupEnv finds key in env as os.LookupEnv would (the last one wins).
func lookupEnv(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v, true
		}
	}
	return "", false
}
