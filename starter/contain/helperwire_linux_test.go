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
	return spawnReq{Call: 1 << 40, Path: "/bin/sh", Dir: "/tmp", Argv: []string{"sh", "-c", "echo é\x00"},
		Env: []string{"A=1", "", "SESSION_STARTER_SESSION=x"}, Stop: syscall.SIGTERM, Grace: 2 * time.Second, Budget: time.Minute}
}

func doneSample() answer {
	return answer{Call: 7, Err: "survivors", Done: doneMsg{Status: syscall.WaitStatus(0x8b00), Tree: Released,
		Elapsed: 1500 * time.Millisecond, Left: []int{12, 1<<31 - 1}, Escaped: []int{}, Survivors: []int{99}, Reaped: true}}
}

// decodeAs reads packet as the helper and the Engine do: the kind byte,
// then the message's fields.
func decodeAs[T any](packet []byte, kind byte, dec func([]byte) (T, error)) (T, error) {
	var zero T
	if len(packet) == 0 || packet[0] != kind {
		return zero, errMalformed
	}
	return dec(packet)
}

// wideAnswer is answer with its status, lists and flag wider than their
// fields, to encode values out of their range.
type wideAnswer struct {
	Call                     uint64
	PID                      int
	Err                      string
	Fail                     failure
	Status                   uint64
	Tree                     TreeState
	Elapsed                  time.Duration
	Left, Escaped, Survivors []uint64
	Reaped                   uint64
}

func TestASpawnRequestDecodesToWhatWasEncoded(t *testing.T) {
	want := spawnSample()
	got, err := decodeAs(encode(msgSpawn, want), msgSpawn, decodeRequest)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("decode(encode(%+v)) = %+v, %v", want, got, err)
	}
}

// TestAnEmptyEnvironmentTravelsEmptyNotNil: an empty Env is not a nil
// one (exec gives a nil Env this process's environment).
func TestAnEmptyEnvironmentTravelsEmptyNotNil(t *testing.T) {
	want := spawnSample()
	want.Env = []string{}
	got, err := decodeAs(encode(msgSpawn, want), msgSpawn, decodeRequest)
	if err != nil || got.Env == nil || len(got.Env) != 0 {
		t.Fatalf("an empty Env decodes to %#v, %v", got.Env, err)
	}
}

func TestADoneMessageDecodesToWhatWasEncoded(t *testing.T) {
	want := doneSample()
	got, err := decodeAs(encode(msgDone, want), msgDone, decodeAnswer)
	// An empty list of numbers travels as a count of 0 and comes back nil.
	want.Done.Escaped = nil
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
		{"spawn", encode(msgSpawn, s), func(b []byte) error { _, err := decodeAs(b, msgSpawn, decodeRequest); return err }},
		{"done", encode(msgDone, d), func(b []byte) error { _, err := decodeAs(b, msgDone, decodeAnswer); return err }},
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
// 2^31-1, an ending past the last, a reaped flag other than 0 or 1, a
// kind neither side sends, a started call without a PID.
func TestAFieldOutOfRangeIsMalformed(t *testing.T) {
	s := spawnSample()
	s.Stop = 65
	if _, err := decodeAs(encode(msgSpawn, s), msgSpawn, decodeRequest); !errors.Is(err, errMalformed) {
		t.Errorf("a spawn with signal 65: %v, want malformed", err)
	}
	if _, err := decodeRequest(encode(msgDone, spawnSample())); !errors.Is(err, errMalformed) {
		t.Errorf("a request of the helper's kind: %v, want malformed", err)
	}
	for name, b := range map[string][]byte{
		"a PID past 2^31-1":       encode(msgDone, wideAnswer{Call: 1, Left: []uint64{1 << 31}}),
		"an ending past the last": encode(msgDone, answer{Call: 1, Done: doneMsg{Tree: Released + 1}}),
		"reaped 2":                encode(msgDone, wideAnswer{Call: 1, Reaped: 2}),
		"a status past 32 bits":   encode(msgDone, wideAnswer{Call: 1, Status: 1 << 32}),
		"a started PID of 0":      encode(msgStarted, answer{Call: 1}),
		"the kind of a spawn":     encode(msgSpawn, answer{Call: 1}),
	} {
		if _, err := decodeAnswer(b); !errors.Is(err, errMalformed) {
			t.Errorf("an answer with %s: %v, want malformed", name, err)
		}
	}
	if _, err := decodeAnswer(encode(msgStarted, answer{Call: 1, PID: 1})); err != nil {
		t.Errorf("a started answer with a PID: %v, want it decoded", err)
	}
}

// FuzzHelperMessages: no packet makes either decoder panic or read past
// it, and one that decodes re-encodes to a message that decodes to the
// same.
func FuzzHelperMessages(f *testing.F) {
	s, d := spawnSample(), doneSample()
	f.Add(encode(msgSpawn, s))
	f.Add(encode(msgDone, d))
	f.Add([]byte{msgSpawn, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Add([]byte{msgDone, 1, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, err := decodeAs(b, msgSpawn, decodeRequest); err == nil {
			again, err := decodeAs(encode(msgSpawn, got), msgSpawn, decodeRequest)
			if err != nil || !reflect.DeepEqual(again, got) {
				t.Fatalf("spawn %+v re-encoded decodes to %+v, %v", got, again, err)
			}
		}
		if got, err := decodeAs(b, msgDone, decodeAnswer); err == nil {
			again, err := decodeAs(encode(msgDone, got), msgDone, decodeAnswer)
			if err != nil || !reflect.DeepEqual(again, got) {
				t.Fatalf("done %+v re-encoded decodes to %+v, %v", got, again, err)
			}
		}
	})
}
