package launch

import (
	"errors"
	"strings"
	"testing"
	"testing/iotest"
)

func TestReadEnded(t *testing.T) {
	const started = `{"event":"started","pid":4242,"pgid":4242,"mode":"group","guard_pid":4247,"time":"2026-11-29T17:32:54.308458118Z"}` + "\n"
	const ended = `{"event":"ended","reason":"engine-exit","executed":true,"exit_code":3,"signal":null,"outcome":"empty","members_seen":0,"escapees_seen":1,"kill_rounds":1,"graceful":false,"survivors":[],"duration_ms":10.2,"group_end_ms":1.6,"starter":{"exit_status":3,"signal":null},"time":"2026-11-29T17:32:54.312739999Z"}` + "\n"
	tests := []struct {
		name, in string
		wantErr  error // nil: an ended record with exit code 3
		anyErr   bool
	}{
		{name: "started then ended", in: started + ended},
		{name: "ended alone", in: ended},
		{name: "an unknown event and unknown fields", in: `{"event":"usage","cpu_ms":3}` + "\n" + strings.Replace(ended, `"event":"ended",`, `"event":"ended","new_field":[1,2],`, 1)},
		{name: "what follows the ended record is not read", in: ended + "not JSON"},
		{name: "nothing", in: "", wantErr: ErrNoEnded},
		{name: "started only: session-starter was killed", in: started, wantErr: ErrNoEnded},
		{name: "cut short", in: started + ended[:40], anyErr: true},
		{name: "not JSON", in: "hello\n", anyErr: true},
		{name: "not an object", in: "[1,2]\n" + ended, anyErr: true},
		{name: "a field of the wrong type", in: strings.Replace(ended, `"exit_code":3`, `"exit_code":"3"`, 1), anyErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// One byte at a time: records split across reads still decode.
			rec, err := ReadEnded(iotest.OneByteReader(strings.NewReader(tt.in)))
			switch {
			case tt.anyErr:
				if err == nil || errors.Is(err, ErrNoEnded) {
					t.Fatalf("ReadEnded(%q) = %+v, %v; want a decoding error", tt.in, rec, err)
				}
			case tt.wantErr != nil:
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("ReadEnded(%q) = %+v, %v; want %v", tt.in, rec, err, tt.wantErr)
				}
			case err != nil || rec.Event != "ended" || rec.ExitCode == nil || *rec.ExitCode != 3 || rec.EscapeesSeen != 1 || rec.Starter.ExitStatus != 3:
				t.Fatalf("ReadEnded(%q) = %+v, %v; want the ended record, exit code 3", tt.in, rec, err)
			}
		})
	}
}

func TestOutcomeNames(t *testing.T) {
	for o, want := range map[Outcome]string{Empty: "empty", Unconfirmed: "unconfirmed", Survivors: "survivors", Refused: "refused", Released: "released", 0: "outcome(0)", 9: "outcome(9)"} {
		if got := o.String(); got != want {
			t.Errorf("Outcome(%d).String() = %q, want %q", int(o), got, want)
		}
	}
}
