//go:build (linux && portable) || darwin || freebsd

package contain

// inHelper: this build is never the spawn helper. (Windows has no use
// for it: its calls are never the helper's.)
const inHelper = false
