package guard

import (
	"errors"
	"fmt"

	"github.com/session-starter/session-starter/internal/wire"
)

// Arg is the first argument that selects the hidden guard mode, with the
// protocol of this version ([wire.HiddenArg]).
var Arg = wire.HiddenArg("guard")

// Comm is the command name (/proc/PID/comm) of the guard.
const Comm = "session-guard"

// pinArg is the first argument that selects the pin, the guard's child
// that holds group E's number on a kernel before Linux 6.9.
var pinArg = wire.HiddenArg("pin")

// verifyArg is the first argument that selects the guard proper after
// the porch (the raw guard): this binary executed by the porch to verify
// a finish it could not confirm, or to end what its strikes left. Its
// second argument is verifyFinish, verifyGone or verifyProbe (the check
// at arming that a binary plays the guard of this protocol).
var verifyArg = wire.HiddenArg("guard-end")

const (
	verifyFinish = "finish"
	verifyGone   = "gone"
	verifyProbe  = "probe"
)

// Invoked reports whether args (os.Args) asks for the guard mode, the
// guard proper after the porch or the pin, of any protocol: [Main]
// refuses another than its own.
func Invoked(args []string) bool {
	if len(args) < 2 {
		return false
	}
	name, _, ok := wire.ParseHidden(args[1])
	return ok && (name == "guard" || name == "guard-end" || name == "pin")
}

// Exit statuses of the guard process.
const (
	// exitDone: the session ended — the guard ended it, or the starter
	// finished it once it was empty.
	exitDone = 0
	// exitRefused: the guard refused to arm (its reason went to the
	// starter as "refused CODE"), or there is no guard on this platform.
	exitRefused = 2
)

// Reasons a guard refuses to arm, sent as "refused CODE".
const (
	refusedNoGroupSignal = 1 + iota
	refusedInGroup
	refusedGroupGone
	refusedSetup
	refusedNoCgroup
)

// ErrRefused is wrapped by Arm's error when the guard refused to arm.
var ErrRefused = errors.New("guard refused to arm")

func refusal(code int) error {
	switch code {
	case refusedNoGroupSignal:
		return fmt.Errorf("%w: the kernel lacks PIDFD_SIGNAL_PROCESS_GROUP (Linux 6.9), and the group could not be pinned", ErrRefused)
	case refusedInGroup:
		return fmt.Errorf("%w: it is a member of the Engine's process group", ErrRefused)
	case refusedGroupGone:
		return fmt.Errorf("%w: the Engine's process group is gone", ErrRefused)
	case refusedNoCgroup:
		return fmt.Errorf("%w: the session cgroup's descriptors are not a cgroup2 directory with cgroup.kill and its parent", ErrRefused)
	}
	return fmt.Errorf("%w: its descriptors were not as expected", ErrRefused)
}
