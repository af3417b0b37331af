package main

// Sessions in cgroup mode (--containment cgroup): the escapes of
// escape_linux_test.go end here too, also when the starter is SIGKILLed,
// and the session cgroup is removed.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/cgroup"
	"github.com/session-starter/session-starter/internal/testproc"
	"github.com/session-starter/session-starter/starter/launch"
)

// cgroupPlace returns the cgroup2 mount point and this process's cgroup
// directory, or skips the test where there is no writable cgroup2.
func cgroupPlace(t *testing.T) (mount, dir string) {
	t.Helper()
	needsCgroup(t)
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(mi), "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		if f := strings.Fields(pre); ok && strings.HasPrefix(post, "cgroup2 ") && len(f) >= 5 && f[3] == "/" {
			mount = f[4]
			break
		}
	}
	own := engineCgroup(t, os.Getpid())
	if mount == "" || unix.Access(mount, unix.W_OK) != nil {
		t.Skip("no writable cgroup2 mount")
	}
	return mount, path.Join(mount, own)
}

// engineCgroup reads the cgroup v2 path of pid ("0::" line).
func engineCgroup(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			return p
		}
	}
	t.Fatalf("pid %d: no cgroup v2 line in %q", pid, b)
	return ""
}

// startCgroup starts a session in cgroup mode and returns it with the
// Engine's PID and the session cgroup's directory, checked to exist and
// to hold the Engine in its leaf.
func startCgroup(t *testing.T, mark string, args []string, opts ...startOpt) (*session, int, string) {
	t.Helper()
	mount, _ := cgroupPlace(t)
	s := start(t, mark, append([]string{"--containment", "cgroup", "--ack"}, args...), opts...)
	pid, mode := s.ackMode()
	if mode != "cgroup" {
		t.Fatalf("ack mode = %q, want cgroup", mode)
	}
	cg := engineCgroup(t, pid)
	if path.Base(cg) != cgroup.EngineLeaf || !strings.HasPrefix(path.Base(path.Dir(cg)), "session-starter-"+strconv.Itoa(s.cmd.Process.Pid)+"-") {
		t.Fatalf("Engine's cgroup = %s, want the %s leaf of a session cgroup named after the starter %d", cg, cgroup.EngineLeaf, s.cmd.Process.Pid)
	}
	dir := path.Join(mount, path.Dir(cg))
	if _, err := os.Stat(path.Join(dir, "cgroup.kill")); err != nil {
		t.Fatal(err)
	}
	return s, pid, dir
}

func gone(t *testing.T, dir string) {
	t.Helper()
	testproc.Eventually(t, "the session cgroup "+dir+" must be removed", func() bool {
		_, err := os.Stat(dir)
		return errors.Is(err, os.ErrNotExist)
	})
}

func TestCgroupModeIsAckedLoggedAndItsCgroupRemovedAfterANormalEnd(t *testing.T) {
	mark := newMark(t)
	s, pid, dir := startCgroup(t, mark, []string{"--log-level", "info", "--log-format", "json", "--", "sh", "-c", `read x; exit 4`})
	// The guard holds the session cgroup and its parent as directories.
	guard := guardOf(t, s.cmd.Process.Pid)
	fds := fdTable(t, guard)
	if fds[8] != dir || fds[9] != path.Dir(dir) {
		t.Errorf("guard fds 8, 9 = %q, %q; want %q and its parent", fds[8], fds[9], dir)
	}
	if procs, _ := os.ReadFile(path.Join(dir, cgroup.EngineLeaf, "cgroup.procs")); !bytes.Contains(procs, []byte(strconv.Itoa(pid)+"\n")) {
		t.Errorf("the Engine's leaf's cgroup.procs = %q, want the Engine %d", procs, pid)
	}
	if procs, _ := os.ReadFile(path.Join(dir, "cgroup.procs")); len(procs) != 0 {
		t.Errorf("the session cgroup's own cgroup.procs = %q, want none: it holds no process", procs)
	}
	if _, err := s.in.Write([]byte("x\n")); err != nil {
		t.Fatal(err)
	}
	wantExit(t, s.wait(), 4, s.stderr)
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("session cgroup after the end: %v, want it removed", err)
	}
	var ev map[string]any
	if err := json.Unmarshal(s.stderr.Bytes(), &ev); err != nil || ev["mode"] != "cgroup" || ev["outcome"] != "empty" {
		t.Errorf("session end event %q (%v), want mode cgroup, group empty", s.stderr, err)
	}
	noSurvivors(t, mark)
}

func TestCgroupModeStatusRecordNamesTheMode(t *testing.T) {
	cgroupPlace(t)
	mark := newMark(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s := start(t, mark, []string{"--containment", "cgroup", "--status-fd", "3", "--", "true"}, withExtraFiles(w))
	w.Close()
	wantExit(t, s.wait(), 0, s.stderr)
	recs := statusRecords(t, r)
	if len(recs) != 2 || recs[0]["mode"] != "cgroup" {
		t.Fatalf("status records = %v, want started with mode cgroup", recs)
	}
}

func TestCgroupModeEndsProcessesThatLeaveTheGroup(t *testing.T) {
	for _, tt := range []struct{ name, escape string }{
		{"setsid", setsidEscape},
		{"double fork", doubleForkEscape},
		{"setpgid", setpgidEscape},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mark := newMark(t)
			s, pid, dir := startCgroup(t, mark, []string{"--", "sh", "-c", tt.escape + ` read x; exit 5`})
			escapee := escaped(t, s, pid)
			if got := engineCgroup(t, escapee); path.Base(path.Dir(got)) != path.Base(dir) {
				t.Fatalf("escapee's cgroup = %s, want a leaf of %s", got, dir)
			}
			if _, err := s.in.Write([]byte("x\n")); err != nil {
				t.Fatal(err)
			}
			wantExit(t, s.wait(), 5, s.stderr)
			noSurvivors(t, mark)
			gone(t, dir)
		})
	}
}

func TestCgroupModeKillsAnEscapeeIgnoringTheStopSignalAfterTheGrace(t *testing.T) {
	mark := newMark(t)
	st := statusPipe(t)
	s, pid, dir := startCgroup(t, mark, []string{"--grace", "200ms", "--status-fd", "3", "--", "sh", "-c", ignoringEscape + ` read x; exit 0`}, withExtraFiles(st))
	escaped(t, s, pid)
	if _, err := s.in.Write([]byte("x\n")); err != nil {
		t.Fatal(err)
	}
	wantExit(t, s.wait(), 0, s.stderr)
	noSurvivors(t, mark)
	gone(t, dir)
}

// TestCgroupModeGraceLetsMembersEndOnTheStopSignal: an escapee that exits
// on SIGTERM gets it, one by one through its pidfd, before any SIGKILL.
// Before Linux 6.13 no pidfd shows a process's cgroup, so the stop signal
// reaches only the Engine, group E and the adopted escapees (the limit the
// README states): the escapee, the Engine's child until the Engine dies,
// may or may not be one of those by then; the grace is short there, and
// cgroup.kill ends it all the same.
func TestCgroupModeGraceLetsMembersEndOnTheStopSignal(t *testing.T) {
	mark := newMark(t)
	dirOut := t.TempDir()
	each, grace := pidfdShowsCgroup(t), "30s"
	if !each {
		grace = "1s"
	}
	s, pid, dir := startCgroup(t, mark, []string{"--grace", grace, "--", "sh", "-c",
		`setsid sh -c 'trap "echo term > ` + dirOut + `/got; exit 0" TERM; echo $$; while :; do sleep 0.1; done' & read x`})
	escaped(t, s, pid)
	s.signal(syscall.SIGTERM)
	s.wait()
	noSurvivors(t, mark)
	gone(t, dir)
	b, err := os.ReadFile(dirOut + "/got")
	switch {
	case err == nil && string(b) == "term\n":
	case !each && errors.Is(err, os.ErrNotExist):
		t.Log("before Linux 6.13: the escapee was not signalled before the SIGKILL")
	default:
		t.Fatalf("the escapee's TERM trap wrote %q, %v; want term", b, err)
	}
}

// TestCgroupModeEndsEscapeesWhenTheStarterIsKilled: the limit of group
// mode (TestEscapeesOutliveAStarterKilledWithSIGKILL) is gone in cgroup
// mode: the guard ends the session cgroup with cgroup.kill and removes it.
func TestCgroupModeEndsEscapeesWhenTheStarterIsKilled(t *testing.T) {
	mark := newMark(t)
	s, pid, dir := startCgroup(t, mark, []string{"--", "sh", "-c", setsidEscape + doubleForkEscape + ` read x`})
	escaped(t, s, pid)
	escaped(t, s, pid)
	s.signal(syscall.SIGKILL)
	s.wait()
	noSurvivors(t, mark)
	gone(t, dir)
}

// TestLeftoverCgroupsOfDeadStartersAreRemovedAndLiveOnesKept: at start,
// an empty session cgroup whose starter is gone is removed; one whose
// starter (here: this test process) lives is kept.
func TestLeftoverCgroupsOfDeadStartersAreRemovedAndLiveOnesKept(t *testing.T) {
	_, own := cgroupPlace(t)
	mark := newMark(t)
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+2:]))
	startTime, err := strconv.ParseUint(f[19], 10, 64) // field 22
	if err != nil {
		t.Fatal(err)
	}
	name := func(start, seq uint64) string {
		return fmt.Sprintf("session-starter-%d-%d-%d", os.Getpid(), start, seq)
	}
	dead := path.Join(own, name(startTime+1, 1)) // no process has this start time
	live := path.Join(own, name(startTime, 1<<40))
	for _, d := range []string{dead, live} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Remove(d) }) // ours, empty
	}
	s := start(t, mark, []string{"--containment", "cgroup", "--", "true"})
	wantExit(t, s.wait(), 0, s.stderr)
	if _, err := os.Stat(dead); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("leftover of a dead starter %s: %v, want it removed", dead, err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("cgroup of a live starter %s: %v, want it kept", live, err)
	}
}

// TestWithoutAWritableCgroup2AutoFallsBackAndCgroupRefuses: in a mount
// namespace of its own where the cgroup2 mount is read-only, or hidden
// under a tmpfs, auto gives group mode, and --containment cgroup exits
// 125 with nothing executed.
func TestWithoutAWritableCgroup2AutoFallsBackAndCgroupRefuses(t *testing.T) {
	mount, _ := cgroupPlace(t)
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare")
	}
	for _, hide := range []struct{ name, cmd string }{
		{"read-only", "mount -o bind,remount,ro " + mount},
		{"tmpfs over it", "mount -t tmpfs none " + mount},
	} {
		for _, tt := range []struct {
			mode string
			want int
		}{{"auto", 0}, {"cgroup", 125}} {
			t.Run(hide.name+"/"+tt.mode, func(t *testing.T) {
				mark := newMark(t)
				dir := t.TempDir()
				// The mount change stays in the new mount namespace
				// (private propagation): a bind remount changes only that
				// mount's flags, never the shared super block.
				cmd := exec.Command("unshare", "--mount", "--propagation", "private", "sh", "-c", hide.cmd+` && exec "$@"`, "sh",
					binary, "--containment", tt.mode, "--ack", "--", "sh", "-c", "touch "+dir+"/ran")
				cmd.Env = append(os.Environ(), markVar+"="+mark)
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				out, _ := cmd.Output()
				if code := cmd.ProcessState.ExitCode(); code != tt.want {
					t.Fatalf("exit %d, want %d; stdout %q, stderr %q", code, tt.want, out, stderr.String())
				}
				_, ranErr := os.Stat(dir + "/ran")
				if tt.want == 0 {
					if !strings.HasPrefix(string(out), `{"session_containment":1,"pid":`) || !strings.HasSuffix(string(out), `,"mode":"group"}`+"\n") || ranErr != nil {
						t.Fatalf("stdout %q, ran: %v; want a group-mode ack and the Engine run", out, ranErr)
					}
				} else {
					if len(out) != 0 || ranErr == nil || !strings.Contains(stderr.String(), "--containment cgroup") {
						t.Fatalf("stdout %q, stderr %q, ran: %v; want no ack, a report naming --containment cgroup and nothing executed", out, stderr.String(), ranErr)
					}
				}
				noSurvivors(t, mark)
			})
		}
	}
}

func TestContainmentFlag(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want launch.Containment
		err  bool
	}{
		{[]string{"--", "x"}, launch.ContainAuto, false},
		{[]string{"--containment", "group", "--", "x"}, launch.ContainGroup, false},
		{[]string{"--containment=cgroup", "--", "x"}, launch.ContainCgroup, false},
		{[]string{"--containment", "auto", "--", "x"}, launch.ContainAuto, false},
		{[]string{"--containment", "Cgroup", "--", "x"}, "", true},
		{[]string{"--containment", "", "--", "x"}, "", true},
	} {
		inv, err := parse(tt.args)
		if (err != nil) != tt.err || (err == nil && inv.opts.Containment != tt.want) {
			t.Errorf("parse(%q) = %v; want containment %q, error %v", tt.args, err, tt.want, tt.err)
		}
	}
}

// TestASessionStartedFromACgroupThatSawCgroupKillRuns: a starter whose
// own cgroup once saw cgroup.kill (written while it was empty) starts
// sessions in cgroup mode as anywhere else, though the kernel may SIGKILL
// a child born there with CLONE_INTO_CGROUP (seen on Linux 6.12 and 6.18,
// not on 6.1 or 7.3: the session cgroup's kill count differs from that of
// the parent's cgroup), so either gate may run. Three sessions in a row
// from one such cgroup: each runs its Engine and mirrors its status.
func TestASessionStartedFromACgroupThatSawCgroupKillRuns(t *testing.T) {
	_, own := cgroupPlace(t)
	dir, err := os.MkdirTemp(own, "test-killed-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Ours: whatever is left in it is a process of this test.
		_ = os.WriteFile(path.Join(dir, "cgroup.kill"), []byte("1"), 0)
		testproc.Eventually(t, "the test cgroup "+dir+" must be removable", func() bool {
			subs, _ := os.ReadDir(dir)
			for _, e := range subs {
				if e.IsDir() {
					_ = os.Remove(path.Join(dir, e.Name()))
				}
			}
			return os.Remove(dir) == nil
		})
	})
	if err := os.WriteFile(path.Join(dir, "cgroup.kill"), []byte("1"), 0); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		mark := newMark(t)
		var stderr bytes.Buffer
		cmd := exec.Command("/bin/sh", "-c", `echo 0 > "$0/cgroup.procs" && exec "$@"`, dir,
			binary, "--containment", "cgroup", "--", "sh", "-c", "exit 3")
		cmd.Env = append(os.Environ(), markVar+"="+mark)
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 3 {
			t.Fatalf("session %d from a cgroup that saw cgroup.kill: %v, want exit status 3; stderr:\n%s", i, err, stderr.String())
		}
		noSurvivors(t, mark)
	}
}
