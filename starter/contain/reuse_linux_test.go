package contain

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/testproc"
)

// reuseReport is what the reuse-loop helper found.
type reuseReport struct {
	Iterations int
	// Reused counts canaries that got the number of a call's leader, the
	// hazard a signal after the reap would hit.
	Reused int
	// Foreign lists canaries that died before the loop ended them.
	Foreign []string
	Err     string
}

func init() {
	testproc.Register("reuse-loop", reuseLoop)
}

// reuseLoop runs as PID 1 of a PID namespace of its own, where it may
// say which number the next process gets (ns_last_pid). Each iteration
// starts a contained /bin/true and cancels it at a random moment around
// the leader's exit (before it, while it is a zombie, after). Meanwhile a
// spawner starts canaries — sleepers that each lead a group of their
// own — asking each time for the number of the current call's leader:
// while the leader's exit is unreaped the number is taken and the canary
// gets another; once it is reaped, the canary may get it. A signal sent
// to a call's group by number after its leader was reaped would then
// reach a canary. The loop ends every canary itself (through its pidfd)
// and counts those that died first.
func reuseLoop(args []string) int {
	n, _ := strconv.Atoi(args[0])
	rep := reuseReport{Iterations: n}
	defer func() {
		b, _ := json.Marshal(rep)
		fmt.Println(string(b))
	}()
	if err := os.WriteFile("/proc/sys/kernel/ns_last_pid", []byte("300"), 0o644); err != nil {
		rep.Err = "ns_last_pid: " + err.Error()
		return 0
	}
	type canary struct {
		cmd *exec.Cmd
		fd  int
	}
	var target atomic.Int64
	stop := make(chan struct{})
	spawned := make(chan reuseReport, 1)
	go func() {
		var own reuseReport
		var canaries []canary
		check := func(c canary) {
			if n, err := sys.Poll([]sys.PollFd{{Fd: int32(c.fd), Events: sys.POLLIN}}, 0); err == nil && n > 0 {
				_ = c.cmd.Wait()
				own.Foreign = append(own.Foreign, fmt.Sprintf("canary %d: %v", c.cmd.Process.Pid, c.cmd.ProcessState))
			} else {
				_ = sys.PidfdSignal(c.fd, syscall.SIGKILL)
				_ = c.cmd.Wait()
			}
			sys.Close(c.fd)
		}
		defer func() {
			for _, c := range canaries {
				check(c)
			}
			spawned <- own
		}()
		for {
			select {
			case <-stop:
				return
			default:
			}
			p := int(target.Load())
			if p > 1 {
				_ = os.WriteFile("/proc/sys/kernel/ns_last_pid", []byte(strconv.Itoa(p-1)), 0o644)
			}
			cmd := exec.Command("/bin/sleep", "3600")
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := cmd.Start(); err != nil {
				own.Err = err.Error()
				return
			}
			fd, err := sys.PidfdOpen(cmd.Process.Pid) // our unreaped child: its number
			if err != nil {
				own.Err = err.Error()
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				return
			}
			if cmd.Process.Pid == p {
				own.Reused++
			}
			canaries = append(canaries, canary{cmd, fd})
			if len(canaries) > 20 {
				check(canaries[0])
				canaries = canaries[1:]
			}
		}
	}()
	for range n {
		ctx, cancel := context.WithCancel(context.Background())
		c := Command(ctx, "/bin/true")
		if err := c.Start(); err != nil {
			cancel()
			rep.Err = err.Error()
			break
		}
		target.Store(int64(c.Process.Pid))
		// /bin/true runs for about half a millisecond: cancel before,
		// around and after its exit.
		if d := time.Duration(rand.IntN(1500)) * time.Microsecond; d > 0 {
			time.Sleep(d)
		}
		cancel()
		_ = c.Wait()
	}
	close(stop)
	own := <-spawned
	rep.Reused, rep.Foreign = own.Reused, own.Foreign
	if rep.Err == "" {
		rep.Err = own.Err
	}
	return 0
}

// TestCancelAroundTheLeadersExitSignalsNoReusedNumber: thousands of
// calls cancelled at random moments around their leader's exit, in a PID
// namespace of their own, next to
// canary groups that take the calls' numbers as soon as they are free: no
// canary is ever signalled.
// SESSION_STARTER_TORTURE=1 runs the 10,000 iterations.
func TestCancelAroundTheLeadersExitSignalsNoReusedNumber(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a PID namespace of its own and its pid_max need root")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare(1)")
	}
	n := 2000
	if os.Getenv("SESSION_STARTER_TORTURE") == "1" {
		n = 10000
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("unshare", "--pid", "--fork", "--mount-proc", exe, strconv.Itoa(n))
	cmd.Env = append(os.Environ(), testproc.HelperEnv(t, "reuse-loop"), "GORACE=atexit_sleep_ms=0")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("reuse loop: %v: %s", err, out)
	}
	var rep reuseReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("reuse loop printed %q: %v", out, err)
	}
	if rep.Err != "" {
		if strings.HasPrefix(rep.Err, "ns_last_pid: ") {
			t.Skipf("cannot choose the namespace's next PID: %s", rep.Err)
		}
		t.Fatalf("reuse loop: %s", rep.Err)
	}
	if len(rep.Foreign) > 0 {
		t.Fatalf("%d canaries were signalled by a call's end in %d iterations: %v", len(rep.Foreign), rep.Iterations, rep.Foreign)
	}
	if rep.Reused == 0 {
		t.Fatalf("no canary got a number a call's group had in %d iterations: the test proves nothing", rep.Iterations)
	}
	t.Logf("%d iterations, %d canaries on numbers a call's group had", rep.Iterations, rep.Reused)
}
