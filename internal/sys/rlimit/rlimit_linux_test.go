package rlimit_test

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/session-starter/session-starter/internal/sys/rlimit"
)

// The test is in its own package: were it in package rlimit, the test
// files' imports would make package syscall initialize first.

// helperEnv makes the test binary print what it recorded and what the
// runtime left, then exit.
const helperEnv = "RLIMIT_TEST_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		var now syscall.Rlimit
		if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &now); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		lim, ok := rlimit.Original()
		fmt.Printf("%v %d %d %d %d\n", ok, lim.Cur, lim.Max, now.Cur, now.Max)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestOriginalIsTheLimitBeforeTheRuntimeRaisedIt starts the test binary
// with a soft limit of 256 below its hard limit: the runtime raises the
// soft limit to hard-1, and Original still reports 256.
func TestOriginalIsTheLimitBeforeTheRuntimeRaisedIt(t *testing.T) {
	var cur syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &cur); err != nil {
		t.Fatal(err)
	}
	if cur.Max < 1024 {
		t.Skipf("hard RLIMIT_NOFILE %d leaves no room below it", cur.Max)
	}
	cmd := exec.Command("/bin/sh", "-c", `ulimit -Sn 256 && exec "$0"`, os.Args[0])
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("true 256 %d %d %d", cur.Max, cur.Max-1, cur.Max)
	if got := strings.TrimSpace(string(out)); got != want {
		t.Fatalf("recorded and current limits = %q, want %q", got, want)
	}
}
