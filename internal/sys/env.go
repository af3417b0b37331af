//go:build unix || windows

package sys

import "strings"

// LookupEnv finds key in env as os.LookupEnv would (the last one wins),
// a name matching as [SameEnvKey] says.
func LookupEnv(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && SameEnvKey(k, key) {
			return v, true
		}
	}
	return "", false
}
