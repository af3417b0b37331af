package guard

import (
	"errors"
	"fmt"
)

// Arg is the first argument that selects the hidden guard mode.
const Arg = "__session-starter-guard__"

// PinArg is the first argument that selects the pin, the guard's child
// that holds group E's number on a kernel before Linux 6.9.
const PinArg = "__session-starter-pin__"

// Invoked reports whether args (os.Args) asks for the guard mode or the
// pin.
func Invoked(args []string) bool {
	return len(args) > 1 && (args[1] == Arg || args[1] == PinArg)
}

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
