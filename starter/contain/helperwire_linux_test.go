//go:build linux && !portable

package contain

import (
	"errors"
	"reflect"
	"syscall"
	"testing"
	"time"
)

// The spawn helper's wire: a message decodes to what was encoded, and a
// packet that is not exactly one message — cut short, with a byte more,
// or with a field out of range — is malformed, never half-read.

func spawnSample() spawnReq {
	return spawnReq{call: 1 << 40, path: "/bin/sh", dir: "/tmp", argv: []string{"sh", "-c", "echo é\x00"},
		env: []string{"A=1", "", "SESSION_STARTER_SESSION=x"}, stop: syscall.SIGTERM, grace: 2 * time.Second, budget: time.Minute}
}

func doneSample() doneMsg {
	return doneMsg{call: 7, status: syscall.WaitStatus(0x8b00), ending: Released, elapsed: 1500 * time.Millisecond,
		err: "survivors", left: []int{12, 1<<31 - 1}, escaped: []int{}, survivors: []int{99}, reaped: true}
}

// decode reads packet as the helper and the Engine do: the kind byte,
// then the message's fields.
func decode[T any](packet []byte, kind byte, dec func(*reader) (T, error)) (T, error) {
	var zero T
	if len(packet) == 0 || packet[0] != kind {
		return zero, errMalformed
	}
	return dec(&reader{b: packet[1:]})
}

func TestASpawnRequestDecodesToWhatWasEncoded(t *testing.T) {
	want := spawnSample()
	got, err := decode(want.encode().b, msgSpawn, decodeSpawn)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("decode(encode(%+v)) = %+v, %v", want, got, err)
	}
}

func TestADoneMessageDecodesToWhatWasEncoded(t *testing.T) {
	want := doneSample()
	got, err := decode(want.encode().b, msgDone, decodeDone)
	// An empty list travels as a count of 0 and comes back nil.
	want.escaped = nil
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("decode(encode(%+v)) = %+v, %v", want, got, err)
	}
}

// TestAMessageCutShortOrLongerIsMalformed: every strict prefix of a
// message, and the message with a byte more, fail to decode.
func TestAMessageCutShortOrLongerIsMalformed(t *testing.T) {
	s, d := spawnSample(), doneSample()
	for _, c := range []struct {
		name string
		b    []byte
		dec  func([]byte) error
	}{
		{"spawn", s.encode().b, func(b []byte) error { _, err := decode(b, msgSpawn, decodeSpawn); return err }},
		{"done", d.encode().b, func(b []byte) error { _, err := decode(b, msgDone, decodeDone); return err }},
	} {
		for n := range len(c.b) {
			if err := c.dec(c.b[:n]); !errors.Is(err, errMalformed) {
				t.Errorf("%s cut to %d of %d bytes: %v, want malformed", c.name, n, len(c.b), err)
			}
		}
		if err := c.dec(append(append([]byte{}, c.b...), 0)); !errors.Is(err, errMalformed) {
			t.Errorf("%s with a byte more: %v, want malformed", c.name, err)
		}
	}
}

// TestAFieldOutOfRangeIsMalformed: a stop signal past 64, a PID past
// 2^31-1, an ending past the last, a reaped flag other than 0 or 1.
func TestAFieldOutOfRangeIsMalformed(t *testing.T) {
	s := spawnSample()
	s.stop = 65
	if _, err := decode(s.encode().b, msgSpawn, decodeSpawn); !errors.Is(err, errMalformed) {
		t.Errorf("a spawn with signal 65: %v, want malformed", err)
	}
	for name, b := range map[string][]byte{
		"a PID past 2^31-1":       newMsg(msgDone).num(1).num(0).num(0).num(0).str("").num(1).num(1 << 31).ints(nil).ints(nil).num(0).b,
		"an ending past the last": newMsg(msgDone).num(1).num(0).num(uint64(Released) + 1).num(0).str("").ints(nil).ints(nil).ints(nil).num(0).b,
		"reaped 2":                newMsg(msgDone).num(1).num(0).num(0).num(0).str("").ints(nil).ints(nil).ints(nil).num(2).b,
		"a status past 32 bits":   newMsg(msgDone).num(1).num(1 << 32).num(0).num(0).str("").ints(nil).ints(nil).ints(nil).num(0).b,
	} {
		if _, err := decode(b, msgDone, decodeDone); !errors.Is(err, errMalformed) {
			t.Errorf("a done message with %s: %v, want malformed", name, err)
		}
	}
}

// FuzzHelperMessages: no packet makes either decoder panic or read past
// it, and one that decodes re-encodes to a message that decodes to the
// same.
func FuzzHelperMessages(f *testing.F) {
	s, d := spawnSample(), doneSample()
	f.Add(s.encode().b)
	f.Add(d.encode().b)
	f.Add([]byte{msgSpawn, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Add([]byte{msgDone, 1, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, err := decode(b, msgSpawn, decodeSpawn); err == nil {
			again, err := decode(got.encode().b, msgSpawn, decodeSpawn)
			if err != nil || !reflect.DeepEqual(again, got) {
				t.Fatalf("spawn %+v re-encoded decodes to %+v, %v", got, again, err)
			}
		}
		if got, err := decode(b, msgDone, decodeDone); err == nil {
			again, err := decode(got.encode().b, msgDone, decodeDone)
			if err != nil || !reflect.DeepEqual(again, got) {
				t.Fatalf("done %+v re-encoded decodes to %+v, %v", got, again, err)
			}
		}
	})
}
