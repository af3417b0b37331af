//go:build linux && !portable

package contain

import (
	"errors"
	"io/fs"
	"syscall"
	"time"
)

// spawnReq is a spawn request: what the helper starts for the Engine.
// Its descriptors (stdin, stdout, stderr, then the extra files) travel
// with it.
type spawnReq struct {
	call          uint64
	path, dir     string
	argv, env     []string
	stop          syscall.Signal
	grace, budget time.Duration
}

func (s *spawnReq) encode() *msg {
	return newMsg(msgSpawn).num(s.call).str(s.path).strs(s.argv).strs(s.env).str(s.dir).
		num(uint64(s.stop)).num(uint64(s.grace)).num(uint64(s.budget))
}

func decodeSpawn(r *reader) (spawnReq, error) {
	s := spawnReq{call: r.num(), path: r.str(), argv: r.strs(), env: r.strs(), dir: r.str()}
	stop := r.num()
	s.grace, s.budget = time.Duration(r.num()), time.Duration(r.num())
	if stop > 64 || s.grace < 0 || s.budget < 0 {
		return s, errMalformed
	}
	s.stop = syscall.Signal(stop)
	return s, r.end()
}

// failure is the error of a spawn the helper's Start refused, sent so
// that the Engine's Start returns the error a direct Start would: an
// *fs.PathError with its errno (errors.Is(err, fs.ErrNotExist) holds for
// a program not found), or, for an error of another kind, its text.
type failure struct {
	op, path, text string
	errno          syscall.Errno // 0: the error is not an *fs.PathError of an errno
}

func failureOf(err error) failure {
	var pe *fs.PathError
	var errno syscall.Errno
	if errors.As(err, &pe) && errors.As(pe.Err, &errno) {
		return failure{op: pe.Op, path: pe.Path, errno: errno}
	}
	return failure{text: err.Error()}
}

func (f failure) encode(m *msg) *msg { return m.str(f.op).str(f.path).num(uint64(f.errno)).str(f.text) }

func decodeFailure(r *reader) failure {
	return failure{op: r.str(), path: r.str(), errno: syscall.Errno(r.num()), text: r.str()}
}

// err is the failure as the Engine's Start returns it.
func (f failure) err() error {
	if f.errno != 0 {
		return &fs.PathError{Op: f.op, Path: f.path, Err: f.errno}
	}
	return errors.New(f.text)
}

// doneMsg is how a helped call ended: the leader's wait status, reaped
// by the helper (reaped false: its leader did not exit within the
// budget), and the call's result.
type doneMsg struct {
	call                     uint64
	status                   syscall.WaitStatus
	ending                   Ending
	elapsed                  time.Duration
	err                      string
	left, escaped, survivors []int
	reaped                   bool
}

func (d *doneMsg) encode() *msg {
	reaped := uint64(0)
	if d.reaped {
		reaped = 1
	}
	return newMsg(msgDone).num(d.call).num(uint64(uint32(d.status))).num(uint64(d.ending)).num(uint64(d.elapsed)).
		str(d.err).ints(d.left).ints(d.escaped).ints(d.survivors).num(reaped)
}

func decodeDone(r *reader) (doneMsg, error) {
	d := doneMsg{call: r.num()}
	status, ending := r.num(), r.num()
	d.elapsed = time.Duration(r.num())
	d.err = r.str()
	d.left, d.escaped, d.survivors = r.ints(), r.ints(), r.ints()
	reaped := r.num()
	if status > 1<<32-1 || ending > uint64(Released) || reaped > 1 || d.elapsed < 0 {
		return d, errMalformed
	}
	d.status, d.ending, d.reaped = syscall.WaitStatus(uint32(status)), Ending(ending), reaped == 1
	return d, r.end()
}
