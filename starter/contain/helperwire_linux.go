//go:build linux && !portable

package contain

import (
	"encoding/binary"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/session-starter/session-starter/internal/sys"
)

// The spawn helper and the Engine talk over a SOCK_SEQPACKET socketpair:
// each message is one packet, which the kernel delivers whole or not at
// all — a send either queued all of it or none of it, so "not one byte
// left this process" is exactly a failed send. A message is a kind byte
// followed by fields: numbers as unsigned varints, byte strings as a
// varint length and the bytes, lists as a varint count and the items.
// The descriptors of a spawn (the call's stdio and extra files) travel
// in the same packet as SCM_RIGHTS. A packet that does not decode
// exactly is an error, which each side treats as its peer's end.

// Kinds of messages.
const (
	// Engine → helper.
	msgSpawn   = 'S' // call, path, argv, env, dir, stop, grace, budget; fds
	msgKill    = 'K' // call: end the whole tree
	msgRelease = 'R' // call: the leader exited; release what it left
	msgEndLeft = 'E' // call: end what a released call left (EndReleased)
	msgForget  = 'F' // call: close the handles kept for EndReleased
	// Helper → Engine.
	msgHello    = 'H' // protocol
	msgStarted  = 's' // call, pid: the leader runs, in a group of its own
	msgFailed   = 'f' // call, failure (see failure): nothing was executed
	msgExited   = 'x' // call: the leader exited; it is held unreaped
	msgDone     = 'd' // call, status, ending, elapsed, error, left, escaped, survivors, reaped
	msgLeftDone = 'e' // call, error: EndReleased ended
)

// maxPacket bounds one message: a spawn's arguments and environment,
// or the lists of a call's end. A seqpacket message must fit the
// sender's socket buffer (212992 bytes by default, net.core.wmem_default);
// a larger spawn is not offered to the helper (the call runs directly,
// with the notice).
const maxPacket = 128 << 10

// maxFDs bounds the descriptors of one spawn: stdin, stdout, stderr and
// the extra files.
const maxFDs = 64

var errMalformed = errors.New("contain: malformed spawn helper message")

// msg builds one message.
type msg struct{ b []byte }

func newMsg(kind byte) *msg      { return &msg{b: []byte{kind}} }
func (m *msg) num(v uint64) *msg { m.b = binary.AppendUvarint(m.b, v); return m }
func (m *msg) str(s string) *msg { m.num(uint64(len(s))); m.b = append(m.b, s...); return m }
func (m *msg) strs(ss []string) *msg {
	m.num(uint64(len(ss)))
	for _, s := range ss {
		m.str(s)
	}
	return m
}
func (m *msg) ints(vs []int) *msg {
	m.num(uint64(len(vs)))
	for _, v := range vs {
		m.num(uint64(v))
	}
	return m
}

// reader decodes one message; the first error sticks.
type reader struct {
	b   []byte
	err error
}

func (r *reader) num() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errMalformed
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) str() string {
	n := r.num()
	if r.err != nil || n > uint64(len(r.b)) {
		r.err = errMalformed
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *reader) strs() []string {
	n := r.num()
	if r.err != nil || n > uint64(len(r.b)) {
		r.err = errMalformed
		return nil
	}
	out := make([]string, 0, n)
	for range n {
		out = append(out, r.str())
	}
	return out
}

func (r *reader) ints() []int {
	n := r.num()
	if r.err != nil || n > uint64(len(r.b)) {
		r.err = errMalformed
		return nil
	}
	var out []int
	for range n {
		v := r.num()
		if v > 1<<31-1 {
			r.err = errMalformed
		}
		out = append(out, int(v))
	}
	return out
}

// end reports the message's error: a decoding error or bytes left over.
func (r *reader) end() error {
	if r.err == nil && len(r.b) > 0 {
		r.err = errMalformed
	}
	return r.err
}

// errUnsent: the send failed and not one byte of the message left this
// process (a seqpacket send queues the whole packet or nothing).
type errUnsent struct{ err error }

func (e errUnsent) Error() string { return "contain: not sent to the spawn helper: " + e.err.Error() }
func (e errUnsent) Unwrap() error { return e.err }

// errSendTimeout: the send could not complete by its deadline (the
// helper does not read: stopped, or stuck); nothing was queued.
var errSendTimeout = errors.New("the spawn helper did not take the message in time")

// sendPacket sends one message with descriptors fds, by deadline (none
// if zero). Every error is an errUnsent: on a seqpacket socket a failed
// sendmsg queued nothing, and a send that would block queues nothing
// either, so one that runs out of time (errSendTimeout) is unsent too.
func sendPacket(sock int, m *msg, fds []int, deadline time.Time) error {
	if len(m.b) > maxPacket {
		return errUnsent{fmt.Errorf("message of %d bytes is over %d", len(m.b), maxPacket)}
	}
	var oob []byte
	if len(fds) > 0 {
		oob = syscall.UnixRights(fds...)
	}
	flags := syscall.MSG_NOSIGNAL
	if !deadline.IsZero() {
		flags |= syscall.MSG_DONTWAIT
	}
	for {
		err := syscall.Sendmsg(sock, m.b, oob, nil, flags)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case !errors.Is(err, syscall.EAGAIN):
			return errUnsent{err}
		}
		left := time.Until(deadline)
		if left <= 0 {
			return errUnsent{errSendTimeout}
		}
		// Woken by room in the helper's queue, its end's close (the
		// next send then fails), or the deadline.
		if _, err := sys.Poll([]sys.PollFd{{Fd: int32(sock), Events: sys.POLLOUT}}, left); err != nil {
			return errUnsent{err}
		}
	}
}

// recvPacket receives one message and its descriptors (close-on-exec).
// io.EOF-like end: n == 0 with no error means the peer closed.
func recvPacket(sock int, buf, oob []byte) (data []byte, fds []int, err error) {
	for {
		n, oobn, flags, _, err := syscall.Recvmsg(sock, buf, oob, syscall.MSG_CMSG_CLOEXEC)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		if oobn > 0 {
			fds, err = parseRights(oob[:oobn])
		}
		if err == nil && flags&(syscall.MSG_TRUNC|syscall.MSG_CTRUNC) != 0 {
			err = errMalformed
		}
		if err != nil {
			closeFDs(fds)
			return nil, nil, err
		}
		return buf[:n], fds, nil
	}
}

func parseRights(oob []byte) ([]int, error) {
	scms, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, err
	}
	var fds []int
	for i := range scms {
		got, err := syscall.ParseUnixRights(&scms[i])
		if err != nil {
			closeFDs(fds)
			return nil, err
		}
		fds = append(fds, got...)
	}
	return fds, nil
}

func closeFDs(fds []int) {
	for _, fd := range fds {
		_ = syscall.Close(fd)
	}
}

// socketpair makes the helper's connection: close-on-exec, so that no
// other child of either process holds an end (the helper must see the
// Engine's end close when the Engine dies).
func socketpair() (engine, helper int, err error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, -1, err
	}
	return fds[0], fds[1], nil
}
