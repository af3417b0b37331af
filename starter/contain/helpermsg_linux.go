//go:build linux && !portable

package contain

import (
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
