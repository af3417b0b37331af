//go:build darwin || freebsd || linux

package starter

import (
	"os"
	"strconv"
	"strings"
)

// listenFor finds the socket-activation variables of env that the gate
// rewrites for the Engine (see gate.Spec): LISTEN_PID, when it names this
// process — a service manager set it for the starter, which it started
// in place of the Engine — and then LISTEN_PIDFDID, if present. Each is
// 1 + its index, or 0. A LISTEN_PID that names another process is left
// as it is, and so is LISTEN_PIDFDID then: the sockets are not the
// session's. This is an exception to the Engine's environment being the
// launcher's, and the only one besides the session mark.
func listenFor(env []string) (pid, pidfdid int) {
	self := "LISTEN_PID=" + strconv.Itoa(os.Getpid())
	for i, kv := range env {
		switch {
		case kv == self:
			pid = i + 1
		case strings.HasPrefix(kv, "LISTEN_PIDFDID="):
			pidfdid = i + 1
		}
	}
	if pid == 0 {
		return 0, 0
	}
	return pid, pidfdid
}
