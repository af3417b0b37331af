package sys

import (
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/session-starter/session-starter/internal/testproc"
)

func init() {
	// ignored-dispositions: print, for SIGTSTP, SIGTTIN, SIGTTOU and
	// SIGUSR2, what SignalIgnored says.
	testproc.Register("ignored-dispositions", func([]string) int {
		for _, sig := range []syscall.Signal{syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU, syscall.SIGUSR2} {
			fmt.Printf("%s %v\n", SignalName(sig), SignalIgnored(sig))
		}
		return 0
	})
}

// TestSignalIgnoredSeesAnInheritedIgnoreOfTheJobStops: a process started
// with SIGTSTP, SIGTTIN and SIGTTOU ignored (sh's trap with an empty
// action, kept across exec) and SIGUSR2 at its default. SignalIgnored
// reports the three ignored, which the Go runtime never looked at, and
// SIGUSR2 not.
func TestSignalIgnoredSeesAnInheritedIgnoreOfTheJobStops(t *testing.T) {
	helper := testproc.HelperCommand(t, "ignored-dispositions")
	cmd := exec.Command("sh", append([]string{"-c", `trap '' TSTP TTIN TTOU; exec "$@"`, "sh", helper.Path}, helper.Args[1:]...)...)
	cmd.Env = helper.Env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v; output: %s", err, out)
	}
	want := "TSTP true\nTTIN true\nTTOU true\nUSR2 false\n"
	if got := string(out); got != want {
		t.Fatalf("SignalIgnored said:\n%s\nwant:\n%s", got, strings.TrimSpace(want))
	}
}
