package gate

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/testproc"
	"github.com/session-starter/session-starter/internal/wire"
)

// FuzzGoAhead starts a real gate of each kind and feeds it arbitrary bytes on its
// go-ahead pipe, then ends the pipe. "%P" in the input stands for the
// gate's PID. Properties: the gate executes the Engine exactly when its
// first line is "go PID\n" (it reads nothing past that line); otherwise it
// exits 125 having executed nothing; a canary leading a group of its own
// is never signalled. The seed corpus is under testdata/fuzz/FuzzGoAhead.
func FuzzGoAhead(f *testing.F) {
	for _, seed := range []string{
		"go %P\n",
		"go %P\ntrailing bytes are not read",
		"",
		"go %P",
		"go  %P\n",
		"go 0%P\n",
		"go -%P\n",
		"go %P%P\n",
		"go 1\n",
		"GO %P\n",
		"ready %P\n",
		"finish %P\n",
		"go 99999999999999999999\n",
		"\ngo %P\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > 4096 {
			t.Skip("longer than a pipe write needs to be")
		}
		for _, k := range kinds {
			if !useKind(k.reExec) {
				continue
			}
			canary := testproc.StartLeader(t, os.Stdout, "/bin/sleep", "600")
			dir := t.TempDir()
			g := startGate(t, dir, "/bin/sh", k.reExec)
			msg := bytes.ReplaceAll(in, []byte("%P"), []byte(strconv.Itoa(g.PID)))
			if len(msg) > 0 {
				// EPIPE: the gate stopped reading at a bad line and exited.
				if err := sys.WriteAll(g.goW, msg); err != nil && !errors.Is(err, unix.EPIPE) {
					t.Fatal(err)
				}
			}
			g.Abort()
			st := reap(t, g)
			valid := bytes.HasPrefix(msg, []byte("go "+strconv.Itoa(g.PID)+"\n"))
			switch {
			case valid && (!ran(dir) || !st.Exited || st.Code != 0):
				t.Fatalf("%s gate, after %q: Engine ran %v, status %v; want it executed, exit 0", k.name, msg, ran(dir), st)
			case !valid && (ran(dir) || !st.Exited || st.Code != wire.ExitNotReleased):
				t.Fatalf("%s gate, after %q: Engine ran %v, status %v; want nothing executed, exit %d", k.name, msg, ran(dir), st, wire.ExitNotReleased)
			}
			if canary.Exited(0) {
				t.Fatalf("after %q the canary, outside the gate's group, was signalled", msg)
			}
		}
	})
}
