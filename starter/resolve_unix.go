//go:build unix

package starter

import "strings"

// lookupEnv finds key in env as os.LookupEnv would (the last one wins).
func lookupEnv(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v, true
		}
	}
	return "", false
}
