//go:build unix || windows

package starter

import "strings"

// lookupEnv finds key in env as os.LookupEnv would (the last one wins).
func lookupEnv(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && sameEnvKey(k, key) {
			return v, true
		}
	}
	return "", false
}
