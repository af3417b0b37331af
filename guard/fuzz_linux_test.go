package guard

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/testproc"
)

// FuzzFinishMessage arms a real guard on a real throwaway group and feeds
// it arbitrary bytes on its finish pipe, then ends the pipe. "%P" in the
// input stands for the group's number, so that the valid message is
// reachable. Properties: while the group has live members no message
// disarms the guard — not even the valid "finish PGID\n", which the guard
// obeys only once the group is empty — so the end of the pipe always ends
// the group; the guard exits 0; a canary leading a group of its own is
// never signalled. Each input goes to both guards (kinds).
// Each input starts three processes, so the seed corpus
// (testdata/fuzz/FuzzFinishMessage) is what `go test` runs; -fuzz works,
// at a few inputs a second.
func FuzzFinishMessage(f *testing.F) {
	for _, seed := range []string{
		"finish %P\n",
		"",
		"finish %P",
		"finish %P\nx",
		"finish %P\n\n",
		"finish  %P\n",
		"finish +%P\n",
		"finish 0%P\n",
		"finish 1\n",
		"finish %P%P\n",
		"armed %P\n",
		"go %P\n",
		"finish 99999999999999999999\n",
		"\x00finish %P\n",
		"finish %P\r\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > 4096 {
			t.Skip("longer than a pipe write needs to be")
		}
		kinds(t, func(t *testing.T, k kind) {
			canary := testproc.StartLeader(t, os.Stdout, "/bin/sleep", "600")
			leader, member := group(t)
			g := arm(t, leader, k)
			msg := bytes.ReplaceAll(in, []byte("%P"), []byte(strconv.Itoa(leader.PID)))
			if len(msg) > 0 {
				// EPIPE: the guard stopped reading at a bad line and has
				// ended the group already.
				if err := sys.WriteAll(g.finW, msg); err != nil && !errors.Is(err, unix.EPIPE) {
					t.Fatal(err)
				}
			}
			sys.Close(g.finW)
			g.finW = -1
			if ws := leader.Wait(t); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
				t.Fatalf("after %q the leader ended with %v, want SIGKILL from the guard", msg, ws)
			}
			testproc.Eventually(t, "the member must be dead", func() bool { return !live(member) })
			if st := awaitGuardExit(t, g); !st.Exited || st.Code != 0 {
				t.Fatalf("guard ended with %v after %q, want exit 0", st, msg)
			}
			if canary.Exited(0) {
				t.Fatalf("after %q the canary, outside the group, was signalled", msg)
			}
		})
	})
}
