package end

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/starter/launch"
)

// benchLeader starts a shell leading a new group with n-1 sleeping
// children, and returns its PID and pidfd once every child is forked.
func benchLeader(b *testing.B, n int) (pid, pidfd int) {
	b.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	script := `i=1; while [ "$i" -lt "$1" ]; do sleep 600 & i=$((i+1)); done; echo ready; exec sleep 600`
	argv := []string{"/bin/sh", "-c", script, "sh", strconv.Itoa(n)}
	pidfd = -1
	pid, err = syscall.ForkExec(argv[0], argv, &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{0, w.Fd(), 2},
		Sys:   &syscall.SysProcAttr{Setpgid: true, PidFD: &pidfd},
	})
	w.Close()
	if err != nil {
		b.Fatal(err)
	}
	if line, err := bufio.NewReader(r).ReadString('\n'); err != nil || line != "ready\n" {
		_ = unix.PidfdSendSignal(pidfd, unix.SIGKILL, nil, unix.PIDFD_SIGNAL_PROCESS_GROUP)
		reapLeader(pidfd)
		b.Fatalf("group of %d: read %q, %v; want ready", n, line, err)
	}
	return pid, pidfd
}

func reapLeader(pidfd int) {
	var info unix.Siginfo
	_ = unix.Waitid(unix.P_PIDFD, pidfd, &info, unix.WEXITED, nil)
	unix.Close(pidfd)
}

// BenchmarkEnd times End on a real group of n sleeping processes, from
// the first SIGKILL to the confirmed end (the members' zombies are PID 1's
// to reap, so the end is shown by a /proc scan, the fallback path). The
// group is rebuilt, untimed, for every iteration.
func BenchmarkEnd(b *testing.B) {
	for _, n := range []int{1, 100} {
		b.Run(fmt.Sprintf("members=%d", n), func(b *testing.B) {
			rounds := 0
			var elapsed time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				pid, pidfd := benchLeader(b, n)
				time.Sleep(5 * time.Millisecond) // the sleeps exec
				b.StartTimer()
				r := End([]Holder{Group{PGID: pid, Send: PidfdGroupSend(pidfd)}}, Plan{Budget: 10 * time.Second})
				b.StopTimer()
				rounds += r.Rounds
				elapsed += r.Elapsed
				// SAFETY: the leader is our unreaped child; its pidfd
				// names its group and no other.
				_ = unix.PidfdSendSignal(pidfd, unix.SIGKILL, nil, unix.PIDFD_SIGNAL_PROCESS_GROUP)
				reapLeader(pidfd)
				if r.Outcome != launch.Empty {
					b.Fatalf("End = %v, want empty", r.Describe())
				}
			}
			b.ReportMetric(float64(rounds)/float64(b.N), "kills/op")
			b.ReportMetric(float64(elapsed.Microseconds())/float64(b.N), "µs-in-End/op")
		})
	}
}
