//go:build unix

package starter

// sameEnvKey reports whether a and b name the same environment variable:
// names are case-sensitive.
func sameEnvKey(a, b string) bool { return a == b }
