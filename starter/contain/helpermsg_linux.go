//go:build linux && !portable

package contain

import (
	"errors"
	"io/fs"
	"slices"
	"syscall"
	"time"
)

// spawnReq is a message of the Engine's: a spawn request, what the
// helper starts for the Engine, or, of another kind, the call it is
// about. A spawn's descriptors (stdin, stdout, stderr, then the extra
// files) travel with it.
type spawnReq struct {
	Call          uint64
	Path          string
	Argv, Env     []string
	Dir           string
	Stop          syscall.Signal
	Grace, Budget time.Duration
}

// decodeRequest decodes a packet of the Engine's.
func decodeRequest(packet []byte) (spawnReq, error) {
	var s spawnReq
	kinds := []byte{msgSpawn, msgKill, msgRelease, msgEndLeft, msgForget}
	if decode(packet[1:], &s) != nil || s.Stop > 64 || !slices.Contains(kinds, packet[0]) {
		return s, errMalformed
	}
	return s, nil
}

// answer is a message of the helper's after its hello, about a call:
// its kind says which of the other fields it carries.
type answer struct {
	Call uint64
	PID  int     // started: the leader's
	Err  string  // done, leftDone: the end's error, "" if none
	Fail failure // failed
	Done doneMsg // done
}

// decodeAnswer decodes a packet of the helper's after its hello.
func decodeAnswer(packet []byte) (answer, error) {
	var a answer
	kinds := []byte{msgStarted, msgFailed, msgExited, msgDone, msgLeftDone}
	if decode(packet[1:], &a) != nil || a.Done.Tree > Released || !slices.Contains(kinds, packet[0]) ||
		(packet[0] == msgStarted && a.PID == 0) {
		return a, errMalformed
	}
	return a, nil
}

// failure is the error of a spawn the helper's Start refused, sent so
// that the Engine's Start returns the error a direct Start would: an
// *fs.PathError with its errno (errors.Is(err, fs.ErrNotExist) holds for
// a program not found), or, for an error of another kind, its text.
type failure struct {
	Op, Path string
	Errno    syscall.Errno // 0: the error is not an *fs.PathError of an errno
	Text     string
}

func failureOf(err error) failure {
	var pe *fs.PathError
	var errno syscall.Errno
	if errors.As(err, &pe) && errors.As(pe.Err, &errno) {
		return failure{Op: pe.Op, Path: pe.Path, Errno: errno}
	}
	return failure{Text: err.Error()}
}

// err is the failure as the Engine's Start returns it.
func (f failure) err() error {
	if f.Errno != 0 {
		return &fs.PathError{Op: f.Op, Path: f.Path, Err: f.Errno}
	}
	return errors.New(f.Text)
}

// doneMsg is how a helped call ended: the leader's wait status, reaped
// by the helper (Reaped false: its leader did not exit within the
// budget), and the call's result.
type doneMsg struct {
	Status                   syscall.WaitStatus
	Tree                     TreeState
	Elapsed                  time.Duration
	Left, Escaped, Survivors []int
	Reaped                   bool
}
