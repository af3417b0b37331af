package ledger

// PID reuse: a reclaim compares identity tokens, never PIDs alone. The
// experiment runs as PID 1 of a PID namespace of its own, where it says
// which number the next process gets (/proc/sys/kernel/ns_last_pid): the
// record's starter, guard and Engine each exit and a stranger — no mark,
// not the session's — gets its PID. A reclaim that compared PIDs would
// take the session for live (its starter's PID runs) and would signal the
// stranger at the Engine's PID; this one reclaims the session, ends its
// escapee, reports the three PIDs as token-mismatch and signals no
// stranger.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/session-starter/session-starter/internal/mark"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/testproc"
)

func TestMain(m *testing.M) {
	testproc.RunHelper()
	os.Exit(testproc.CheckGoroutinesEnded(m.Run()))
}

func init() {
	testproc.Register("reclaim-reuse", reclaimReuse)
}

// reuseResult is what the reclaim-reuse helper found.
type reuseResult struct {
	Report Report
	// PIDs are the record's starter, guard and Engine PIDs, each now a
	// stranger's.
	PIDs [3]int
	// StrangersAlive says, for each, whether the stranger still runs
	// after the reclaim.
	StrangersAlive [3]bool
	// Escapee is the session's marked process; EscapeeEnded whether the
	// reclaim ended it.
	Escapee      int
	EscapeeEnded bool
	Err          string
}

// skipPrefix starts an Err that means the namespace cannot be set up.
const skipPrefix = "skip: "

// reclaimReuse runs as PID 1 of its own PID namespace. args[0] is the
// token kind the record holds: "pidfs" (as written on Linux 6.9+ 64-bit
// kernels) or "start" (the start time alone, as written elsewhere).
func reclaimReuse(args []string) int {
	var res reuseResult
	var children []*exec.Cmd
	defer func() {
		for _, c := range children {
			_ = c.Process.Kill() // our children, unreaped: the PIDs are theirs
			_ = c.Wait()
		}
		b, _ := json.Marshal(res)
		fmt.Println(string(b))
	}()
	id, err := mark.New()
	if err != nil {
		res.Err = err.Error()
		return 0
	}
	// spawn starts a sleeper with env; with pid > 0 it asks for that PID
	// and returns nil if another was given (a thread of this process may
	// take it first).
	spawn := func(pid int, env []string) (*exec.Cmd, error) {
		if pid > 0 {
			if err := os.WriteFile("/proc/sys/kernel/ns_last_pid", []byte(strconv.Itoa(pid-1)), 0o644); err != nil {
				return nil, fmt.Errorf("%sns_last_pid: %w", skipPrefix, err)
			}
		}
		cmd := exec.Command("/bin/sleep", "600")
		cmd.Env = env
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		if pid > 0 && cmd.Process.Pid != pid {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			return nil, nil
		}
		children = append(children, cmd)
		return cmd, nil
	}
	stranger := os.Environ() // no mark
	var procs [3]Process
	var strangers [3]*exec.Cmd
	for i, pid := range []int{350, 360, 370} {
		for attempt := 0; ; attempt++ {
			if attempt == 100 {
				res.Err = fmt.Sprintf("%sPID %d could not be handed out twice", skipPrefix, pid)
				return 0
			}
			orig, err := spawn(pid, mark.Extend(os.Environ(), id))
			if err != nil {
				res.Err = err.Error()
				return 0
			}
			if orig == nil {
				continue
			}
			tok, err := TokenOf(pid) // our unreaped child: the PID names it
			if err != nil {
				res.Err = err.Error()
				return 0
			}
			if args[0] == "start" {
				tok.Pidfs = 0
			}
			_ = orig.Process.Kill()
			_ = orig.Wait()
			children = slices.DeleteFunc(children, func(c *exec.Cmd) bool { return c == orig })
			other, err := spawn(pid, stranger)
			if err != nil {
				res.Err = err.Error()
				return 0
			}
			if other == nil {
				continue
			}
			if now, err := TokenOf(pid); err != nil || now.Start == tok.Start {
				// Started in the same clock tick: by the start alone the
				// two cannot be told apart (a limit of that token), and
				// this run would prove nothing. Again.
				_ = other.Process.Kill()
				_ = other.Wait()
				children = slices.DeleteFunc(children, func(c *exec.Cmd) bool { return c == other })
				continue
			}
			procs[i], strangers[i] = Process{PID: pid, Token: tok}, other
			res.PIDs[i] = pid
			break
		}
	}
	// The session's escapee: it carries the mark and started after the
	// Engine did.
	escapee, err := spawn(0, mark.Extend(os.Environ(), id))
	if err != nil {
		res.Err = err.Error()
		return 0
	}
	res.Escapee = escapee.Process.Pid
	boot, err := BootID()
	if err != nil {
		res.Err = err.Error()
		return 0
	}
	_, dir, err := OpenDir()
	if err != nil {
		res.Err = err.Error()
		return 0
	}
	ns, err := Here()
	if err != nil {
		res.Err = err.Error()
		return 0
	}
	r := Record{Version: Version, BootID: boot, Session: id.String(), UID: os.Getuid(), Mode: "group", Created: Now(),
		Starter: procs[0], Guard: procs[1], Engine: procs[2], PGID: procs[2].PID, NS: ns}
	err = Write(dir, r)
	sys.Close(dir)
	if err != nil {
		res.Err = err.Error()
		return 0
	}
	rep, err := Reclaim(context.Background(), false)
	if err != nil {
		res.Err = err.Error()
		return 0
	}
	res.Report = rep
	// Our children: a pidfd from their unreaped PIDs names them.
	exited := func(c *exec.Cmd, within time.Duration) bool {
		fd, err := sys.PidfdOpen(c.Process.Pid)
		if err != nil {
			return true
		}
		defer sys.Close(fd)
		n, err := sys.Poll([]sys.PollFd{{Fd: int32(fd), Events: sys.POLLIN}}, within)
		return err == nil && n > 0
	}
	res.EscapeeEnded = exited(escapee, testproc.TooLong)
	for i, c := range strangers {
		res.StrangersAlive[i] = !exited(c, 0)
	}
	return 0
}

// TestReclaimRefusesARecordsPIDGivenToAStranger: the record's starter,
// guard and Engine have exited and strangers have their PIDs. The reclaim
// takes the session for dead — its starter and guard are shown gone,
// though their PIDs run — and ends its marked escapee; the strangers at
// the starter's, guard's and Engine's PIDs are reported as
// token-mismatch; no stranger is signalled. Both token kinds: the pidfs inode, and the start alone.
func TestReclaimRefusesARecordsPIDGivenToAStranger(t *testing.T) {
	if !mark.Supported {
		t.Skip("the escapees are found by the mark scan, which the portable build has not (its reclaim reports them, reason platform)")
	}
	if os.Geteuid() != 0 {
		t.Skip("a PID namespace of its own and its ns_last_pid need root")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare(1)")
	}
	for _, kind := range []string{"pidfs", "start"} {
		t.Run(kind, func(t *testing.T) {
			if kind == "pidfs" {
				if tok, err := TokenOf(os.Getpid()); err != nil || tok.Pidfs == 0 {
					t.Skip("pidfds are not in pidfs here (before Linux 6.9, or a 32-bit kernel)")
				}
			}
			dir := private(t)
			exe, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("unshare", "--pid", "--fork", "--mount-proc", exe, kind)
			cmd.Env = append(os.Environ(), testproc.HelperEnv(t, "reclaim-reuse"), EnvDir+"="+dir, "GORACE=atexit_sleep_ms=0")
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("the namespace's init: %v: %s", err, out)
			}
			var res reuseResult
			if err := json.Unmarshal(out, &res); err != nil {
				t.Fatalf("the namespace's init printed %q: %v", out, err)
			}
			if len(res.Err) > len(skipPrefix) && res.Err[:len(skipPrefix)] == skipPrefix {
				t.Skip(res.Err[len(skipPrefix):])
			}
			if res.Err != "" {
				t.Fatal(res.Err)
			}
			if len(res.Report.Sessions) != 1 || res.Report.Sessions[0].Action != "reclaimed" {
				t.Fatalf("reclaim: %+v; want the session reclaimed (its starter's and guard's PIDs are strangers')", res.Report)
			}
			s := res.Report.Sessions[0]
			if !res.EscapeeEnded || !slices.ContainsFunc(s.Ended, func(e Ended) bool { return e.PID == res.Escapee }) {
				t.Errorf("the session's escapee %d: ended %v, reported %+v; want it ended", res.Escapee, res.EscapeeEnded, s.Ended)
			}
			for i, pid := range res.PIDs {
				if !slices.Contains(s.Left, LeftProcess{PID: pid, Reason: "token-mismatch"}) {
					t.Errorf("reclaim left %+v; want the %s's PID %d reported as token-mismatch", s.Left, []string{"starter", "guard", "Engine"}[i], pid)
				}
			}
			for i, alive := range res.StrangersAlive {
				if !alive {
					t.Errorf("the stranger at PID %d (the record's %s) was signalled", res.PIDs[i], []string{"starter", "guard", "Engine"}[i])
				}
			}
			if slices.ContainsFunc(s.Ended, func(e Ended) bool { return slices.Contains(res.PIDs[:], e.PID) }) {
				t.Errorf("reclaim reported ending %+v, which holds a stranger's PID %v", s.Ended, res.PIDs)
			}
		})
	}
}

// TestReclaimEndsTheRecordsEngineByItsTokenWithoutItsMark: an Engine that
// scrubbed the mark from its environment is still the process its record
// names; the reclaim of its dead session ends it through a pidfd, and a
// dry run only lists it.
func TestReclaimEndsTheRecordsEngineByItsTokenWithoutItsMark(t *testing.T) {
	dir := private(t)
	t.Setenv(EnvDir, dir)
	gone := func() Process {
		c := exec.Command("/bin/true")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		tok, err := TokenOf(c.Process.Pid) // unreaped: the PID names it
		if err != nil {
			t.Fatal(err)
		}
		_ = c.Wait()
		return Process{PID: c.Process.Pid, Token: tok}
	}
	engine := exec.Command("/bin/sleep", "600")
	engine.Env = []string{} // no mark
	if err := engine.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = engine.Process.Kill(); _ = engine.Wait() })
	tok, err := TokenOf(engine.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	id, err := mark.New()
	if err != nil {
		t.Fatal(err)
	}
	boot, err := BootID()
	if err != nil {
		t.Fatal(err)
	}
	r := Record{Version: Version, BootID: boot, Session: id.String(), UID: os.Getuid(), Mode: "group", Created: Now(),
		Starter: gone(), Guard: gone(), Engine: Process{PID: engine.Process.Pid, Token: tok}, PGID: engine.Process.Pid, NS: here(t)}
	if err := write(t, dir, r); err != nil {
		t.Fatal(err)
	}
	want := []Ended{{PID: engine.Process.Pid, Comm: "sleep"}}
	rep, err := Reclaim(context.Background(), true)
	if err != nil || len(rep.Sessions) != 1 || !slices.Equal(rep.Sessions[0].Ended, want) || !Alive(engine.Process.Pid, tok) {
		t.Fatalf("Reclaim(dry) = %+v, %v; want the Engine listed, and alive", rep, err)
	}
	rep, err = Reclaim(context.Background(), false)
	if err != nil || len(rep.Sessions) != 1 || rep.Sessions[0].Action != "reclaimed" || !slices.Equal(rep.Sessions[0].Ended, want) {
		t.Fatalf("Reclaim = %+v, %v; want the Engine ended", rep, err)
	}
	if err := engine.Wait(); err == nil || engine.ProcessState.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the Engine: %v; want it SIGKILLed", engine.ProcessState)
	}
}
