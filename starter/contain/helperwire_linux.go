//go:build linux && !portable

package contain

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"syscall"
	"time"

	"github.com/session-starter/session-starter/internal/sys"
)

// The spawn helper and the Engine talk over a SOCK_SEQPACKET socketpair:
// each message is one packet, which the kernel delivers whole or not at
// all — a send either queued all of it or none of it, so "not one byte
// left this process" is exactly a failed send. A message is a kind byte
// followed by the fields of one struct, in their order: numbers as
// unsigned varints, byte strings as a varint length and the bytes, lists
// as a varint count and the items, a struct as its fields. The Engine's
// messages are each a spawnReq, the helper's an answer after its hello.
// The descriptors of a spawn (the call's stdio and extra files) travel
// in the same packet as SCM_RIGHTS. A packet that does not decode
// exactly is an error, which each side treats as its peer's end.

// Kinds of messages.
const (
	// Engine → helper: a spawnReq, of which only the call counts but in
	// a spawn.
	msgSpawn   = 'S' // call, path, argv, env, dir, stop, grace, budget; fds
	msgKill    = 'K' // call: end the whole tree
	msgRelease = 'R' // call: the leader exited; release what it left
	msgEndLeft = 'E' // call: end what a released call left (EndReleased)
	msgForget  = 'F' // call: close the handles kept for EndReleased
	// Helper → Engine: the hello, then answers.
	msgHello    = 'H' // protocol
	msgStarted  = 's' // call, PID: the leader runs, in a group of its own
	msgFailed   = 'f' // call, failure (see failure): nothing was executed
	msgExited   = 'x' // call: the leader exited; it is held unreaped
	msgDone     = 'd' // call, error, done: how the call ended
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

// encode is the message of kind that carries v, a struct.
func encode(kind byte, v any) []byte { return appendValue([]byte{kind}, reflect.ValueOf(v)) }

func appendValue(b []byte, v reflect.Value) []byte {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			b = appendValue(b, v.Field(i))
		}
		return b
	case reflect.String:
		return append(binary.AppendUvarint(b, uint64(v.Len())), v.String()...)
	case reflect.Slice:
		b = binary.AppendUvarint(b, uint64(v.Len()))
		for i := range v.Len() {
			b = appendValue(b, v.Index(i))
		}
		return b
	case reflect.Bool:
		if v.Bool() {
			return append(b, 1)
		}
		return append(b, 0)
	case reflect.Int, reflect.Int64:
		return binary.AppendUvarint(b, uint64(v.Int()))
	}
	return binary.AppendUvarint(b, v.Uint())
}

// decode reads a message's fields, body (what follows the kind byte),
// into *v. A body with bytes short or left over, or a number out of its
// field's range, is malformed: an int (a PID, a signal, a tree state) past
// 2^31-1, a duration past 2^63-1, a flag other than 0 or 1.
func decode(body []byte, v any) error {
	r := &reader{b: body}
	r.value(reflect.ValueOf(v).Elem())
	if r.err == nil && len(r.b) > 0 {
		r.err = errMalformed
	}
	return r.err
}

// reader decodes one message; the first error sticks.
type reader struct {
	b   []byte
	err error
}

// num reads a number of at most limit.
func (r *reader) num(limit uint64) uint64 {
	v, n := binary.Uvarint(r.b)
	if r.err != nil || n <= 0 || v > limit {
		r.err = errMalformed
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count reads a length or a count: each byte or item takes a byte at
// least.
func (r *reader) count() int {
	n := r.num(math.MaxUint64)
	if r.err != nil || n > uint64(len(r.b)) {
		r.err = errMalformed
		return 0
	}
	return int(n)
}

func (r *reader) value(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			r.value(v.Field(i))
		}
	case reflect.String:
		n := r.count()
		v.SetString(string(r.b[:n]))
		r.b = r.b[n:]
	case reflect.Slice:
		// An empty list of numbers comes back nil; of strings, empty: an
		// empty Env is not a nil one.
		if n := r.count(); n > 0 || (r.err == nil && v.Type().Elem().Kind() == reflect.String) {
			v.Set(reflect.MakeSlice(v.Type(), n, n))
			for i := range n {
				r.value(v.Index(i))
			}
		}
	case reflect.Bool:
		v.SetBool(r.num(1) == 1)
	case reflect.Int:
		v.SetInt(int64(r.num(math.MaxInt32)))
	case reflect.Int64:
		v.SetInt(int64(r.num(math.MaxInt64)))
	default:
		v.SetUint(r.num(math.MaxUint64 >> (64 - v.Type().Bits())))
	}
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
func sendPacket(sock int, m []byte, fds []int, deadline time.Time) error {
	if len(m) > maxPacket {
		return errUnsent{fmt.Errorf("message of %d bytes is over %d", len(m), maxPacket)}
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
		err := syscall.Sendmsg(sock, m, oob, nil, flags)
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
		scms, err := syscall.ParseSocketControlMessage(oob[:oobn])
		for i := 0; err == nil && i < len(scms); i++ {
			var got []int
			got, err = syscall.ParseUnixRights(&scms[i])
			fds = append(fds, got...)
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

func closeFDs(fds []int) {
	for _, fd := range fds {
		_ = syscall.Close(fd)
	}
}
