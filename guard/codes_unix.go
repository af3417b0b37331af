//go:build darwin || freebsd || linux

package guard

import (
	"errors"
	"fmt"

	"github.com/session-starter/session-starter/internal/wire"
)

// arg is the first argument that selects the hidden guard mode, with the
// protocol of this version ([wire.HiddenArg]).
var arg = wire.HiddenArg("guard")

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

// exitDone is the exit status of a guard whose session ended: the guard
// ended it, or the starter finished it once it was empty.
const exitDone = 0

// errRefused is wrapped by Arm's error when the guard refused to arm.
var errRefused = errors.New("guard refused to arm")

// Reasons a guard refuses to arm, sent as "refused CODE".
const (
	refusedNoGroupSignal = 1 + iota
	refusedInGroup
	refusedGroupGone
	refusedSetup
	refusedNoCgroup
)

// refusals say why for each refusal code but refusedSetup.
var refusals = map[int]string{
	refusedNoGroupSignal: "the kernel lacks PIDFD_SIGNAL_PROCESS_GROUP (Linux 6.9), and the group could not be pinned",
	refusedInGroup:       "it is a member of the Engine's process group",
	refusedGroupGone:     "the Engine's process group is gone",
	refusedNoCgroup:      "the session cgroup's descriptors are not a cgroup2 directory with cgroup.kill and its parent",
}

// refusal is the error for a refusal code.
func refusal(code int) error {
	if why, ok := refusals[code]; ok {
		return fmt.Errorf("%w: %s", errRefused, why)
	}
	return fmt.Errorf("%w: its descriptors were not as expected", errRefused)
}
