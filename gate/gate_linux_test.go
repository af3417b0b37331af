package gate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/cgroup"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/testproc"
	"github.com/session-starter/session-starter/internal/wire"
)

// The test binary plays the gate: Start starts it with arg first.
func TestMain(m *testing.M) {
	wire.RunHidden(os.Args)
	// Hidden modes first: they never return. Then the tests, which
	// must leave no goroutine behind.
	os.Exit(testproc.CheckGoroutinesEnded(m.Run()))
}

// kinds are the ways a gate is made: each test runs against every one.
var kinds = []struct {
	name   string
	reExec bool
}{{"raw", false}, {"re-exec", true}}

// useKind reports false where there is no such gate here.
func useKind(reExec bool) bool { return reExec || rawSupported() }

// forEachKind runs f once per kind of gate, as a subtest.
func forEachKind(t *testing.T, f func(t *testing.T, reExec bool)) {
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			if !useKind(k.reExec) {
				t.Skip("no raw gate here: close_range (Linux 5.9) or the original open-files limit is missing")
			}
			f(t, k.reExec)
		})
	}
}

// startGate starts a gate whose Engine would write its PID to a file
// named ran in dir.
func startGate(t *testing.T, dir string, path string, reExec bool) *Gate {
	t.Helper()
	return startGateWith(t, Spec{
		Path:   path,
		Argv:   []string{"sh", "-c", `echo $$ > "$0"`, filepath.Join(dir, "ran")},
		Files:  []int{0, 1, 2},
		ReExec: reExec,
	})
}

// startGateWith starts a gate for spec, with the test binary as Exe and
// the test's environment.
func startGateWith(t *testing.T, spec Spec) *Gate {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	spec.Exe = exe
	spec.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
	g, err := start(spec)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() {
		if g.Pidfd >= 0 {
			_ = sys.PidfdSignal(g.Pidfd, syscall.SIGKILL)
			_, _ = sys.ReapWithin(g.Pidfd, testproc.TooLong)
			g.Close()
		}
	})
	return g
}

// reap waits for the gate (or its Engine) to exit and reaps it.
func reap(t *testing.T, g *Gate) sys.WaitStatus {
	t.Helper()
	fds := []unix.PollFd{{Fd: int32(g.Pidfd), Events: unix.POLLIN}}
	if n, err := sys.Poll(fds, testproc.TooLong); err != nil || n == 0 {
		t.Fatalf("gate pid %d still running after %v (%v)", g.PID, testproc.TooLong, err)
	}
	st, err := sys.ReapWithin(g.Pidfd, testproc.TooLong)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func ran(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "ran"))
	return err == nil
}

func TestStartedGateLeadsItsGroupAndHasExecutedNothing(t *testing.T) {
	forEachKind(t, func(t *testing.T, reExec bool) {
		dir := t.TempDir()
		g := startGate(t, dir, "/bin/sh", reExec)
		if pgid, err := unix.Getpgid(g.PID); err != nil || pgid != g.PID {
			t.Fatalf("getpgid(%d) = %d, %v; want its own group", g.PID, pgid, err)
		}
		if ran(dir) {
			t.Fatal("the Engine ran before the go-ahead")
		}
		comm, _ := os.ReadFile("/proc/" + strconv.Itoa(g.PID) + "/comm")
		if got := strings.TrimSpace(string(comm)); got != wire.GateComm {
			t.Fatalf("gate's command name = %q, want %q", got, wire.GateComm)
		}
		cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(g.PID) + "/cmdline")
		if got := strings.Contains(string(cmdline), arg); got != reExec {
			t.Fatalf("gate's command line = %q: hidden gate mode %v, want %v", cmdline, got, reExec)
		}
	})
}

// TestSpawnReturnsWithGroupEAlreadyThere: the guard is armed on group E
// right after Spawn, before the gate said ready; E must exist by then.
func TestSpawnReturnsWithGroupEAlreadyThere(t *testing.T) {
	forEachKind(t, func(t *testing.T, reExec bool) {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		g, err := Spawn(Spec{Exe: exe, Path: "/bin/true", Argv: []string{"true"}, Files: []int{0, 1, 2}, ReExec: reExec})
		if err != nil {
			t.Fatal(err)
		}
		pgid, err := unix.Getpgid(g.PID)
		serr := sys.PidfdSignalGroup(g.Pidfd, 0)
		g.Abort()
		reap(t, g)
		g.Close()
		if err != nil || pgid != g.PID {
			t.Fatalf("right after Spawn getpgid(%d) = %d, %v; want its own group", g.PID, pgid, err)
		}
		if serr != nil && !errors.Is(serr, sys.ErrNoGroupSignal) {
			t.Fatalf("right after Spawn a group signal 0 through the gate's pidfd = %v, want nil", serr)
		}
	})
}

func TestReleaseExecutesTheEngineAsTheSameProcess(t *testing.T) {
	forEachKind(t, func(t *testing.T, reExec bool) {
		dir := t.TempDir()
		g := startGate(t, dir, "/bin/sh", reExec)
		if err := g.Release(); err != nil {
			t.Fatal(err)
		}
		if st := reap(t, g); !st.Exited || st.Code != 0 {
			t.Fatalf("Engine ended with %v", st)
		}
		if err := g.ExecResult(); err != nil {
			t.Fatalf("ExecResult = %v, want nil", err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "ran"))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(string(b)); got != strconv.Itoa(g.PID) {
			t.Fatalf("the Engine's PID was %s, want the gate's %d", got, g.PID)
		}
	})
}

func TestExecFailureComesBackAsItsErrno(t *testing.T) {
	forEachKind(t, func(t *testing.T, reExec bool) {
		dir := t.TempDir()
		notExec := filepath.Join(dir, "data")
		if err := os.WriteFile(notExec, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, tt := range []struct {
			path   string
			errno  syscall.Errno
			status int
		}{
			{filepath.Join(dir, "missing"), syscall.ENOENT, 127},
			{filepath.Join(notExec, "below"), syscall.ENOTDIR, 127},
			{notExec, syscall.EACCES, 126},
		} {
			g := startGate(t, dir, tt.path, reExec)
			if err := g.Release(); err != nil {
				t.Fatal(err)
			}
			st := reap(t, g)
			var pe *os.PathError
			if err := g.ExecResult(); !errors.As(err, &pe) || pe.Op != "execute" || pe.Err != tt.errno || pe.Path != tt.path {
				t.Fatalf("ExecResult = %v, want a PathError of execute with %v for %s", err, tt.errno, tt.path)
			}
			if !st.Exited || st.Code != tt.status {
				t.Fatalf("gate for %s ended with %v, want exit %d", tt.path, st, tt.status)
			}
		}
	})
}

// TestAFileWithoutInterpreterLineRunsUnderTheShell: execve refuses a
// script without "#!" with ENOEXEC; the gate runs it with /bin/sh, as
// execvp does, with the Engine's arguments after the script's path.
func TestAFileWithoutInterpreterLineRunsUnderTheShell(t *testing.T) {
	forEachKind(t, func(t *testing.T, reExec bool) {
		dir := t.TempDir()
		script := filepath.Join(dir, "script")
		if err := os.WriteFile(script, []byte(`echo "$$ $0 $*" > "$1"`+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out")
		g := startGateWith(t, Spec{Path: script, Argv: []string{"script", out, "x y"}, Files: []int{0, 1, 2}, ReExec: reExec})
		if err := g.Release(); err != nil {
			t.Fatal(err)
		}
		if st := reap(t, g); !st.Exited || st.Code != 0 {
			t.Fatalf("Engine ended with %v", st)
		}
		if err := g.ExecResult(); err != nil {
			t.Fatalf("ExecResult = %v, want nil", err)
		}
		b, err := os.ReadFile(out)
		if want := fmt.Sprintf("%d %s %s x y\n", g.PID, script, out); err != nil || string(b) != want {
			t.Fatalf("script wrote %q (%v), want %q", b, err, want)
		}
	})
}

// TestGateExecutesNothingUnlessTheGoAheadIsExact: a starter that is gone,
// or sends anything but "go PID", gets no Engine. For the raw gate "gone"
// also shows that it holds no copy of the go-ahead's write end: with one,
// it would wait for ever.
func TestGateExecutesNothingUnlessTheGoAheadIsExact(t *testing.T) {
	forEachKind(t, func(t *testing.T, reExec bool) {
		for _, tt := range []struct {
			name string
			msg  func(pid int) string
		}{
			{"starter gone", func(int) string { return "" }},
			{"go without pid", func(int) string { return "go\n" }},
			{"go for another pid", func(p int) string { return "go " + strconv.Itoa(p+1) + "\n" }},
			{"go for a pid with a leading zero", func(p int) string { return "go 0" + strconv.Itoa(p) + "\n" }},
			{"go without newline", func(p int) string { return "go " + strconv.Itoa(p) }},
			{"finish instead", func(p int) string { return "finish " + strconv.Itoa(p) + "\n" }},
			{"garbage", func(int) string { return "\x00\xff go go go\n" }},
		} {
			t.Run(tt.name, func(t *testing.T) {
				dir := t.TempDir()
				g := startGate(t, dir, "/bin/sh", reExec)
				if msg := tt.msg(g.PID); msg != "" {
					if err := sys.WriteAll(g.goW, []byte(msg)); err != nil {
						t.Fatal(err)
					}
				}
				g.Abort()
				if st := reap(t, g); !st.Exited || st.Code != wire.ExitNotReleased {
					t.Fatalf("gate ended with %v, want exit %d", st, wire.ExitNotReleased)
				}
				if ran(dir) {
					t.Fatal("the Engine ran without a valid go-ahead")
				}
			})
		}
	})
}

// TestRawGateHoldsOnlyTheEnginesDescriptorsAndItsPipes: while it waits,
// the raw gate has the Engine's descriptors and its two pipes open and
// nothing else of this process (here: a pipe without close-on-exec and
// one with it, standing for another session's); the Engine then gets the
// launcher's descriptor at its number and neither pipe.
func TestRawGateHoldsOnlyTheEnginesDescriptorsAndItsPipes(t *testing.T) {
	forEachRawKind(t, func(t *testing.T) {
		var p [2]int
		if err := unix.Pipe(p[:]); err != nil { // no close-on-exec
			t.Fatal(err)
		}
		defer unix.Close(p[0])
		defer unix.Close(p[1])
		other, otherW, err := sys.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer sys.Close(other)
		defer sys.Close(otherW)
		// The launcher's descriptor, close-on-exec as the starter marks it.
		launcher, err := unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Close(launcher)

		dir := t.TempDir()
		out := filepath.Join(dir, "fds")
		g := startGateWith(t, Spec{
			Path:  "/bin/sh",
			Argv:  []string{"sh", "-c", `exec ls /proc/self/fd > "$0"`, out},
			Files: []int{0, 1, 2, launcher},
		})
		ents, err := os.ReadDir("/proc/" + strconv.Itoa(g.PID) + "/fd")
		if err != nil {
			t.Fatal(err)
		}
		var fds []int
		for _, e := range ents {
			fd, _ := strconv.Atoi(e.Name())
			fds = append(fds, fd)
		}
		if len(fds) != 6 || !slices.Contains(fds, launcher) || slices.Contains(fds, p[0]) || slices.Contains(fds, p[1]) ||
			slices.Contains(fds, other) || slices.Contains(fds, otherW) || slices.Contains(fds, g.goW) || slices.Contains(fds, g.repR) {
			t.Fatalf("waiting gate holds descriptors %v; want 0, 1, 2, %d and its two pipe ends only", fds, launcher)
		}
		if err := g.Release(); err != nil {
			t.Fatal(err)
		}
		if st := reap(t, g); !st.Exited || st.Code != 0 {
			t.Fatalf("Engine ended with %v", st)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var engine []int
		for _, f := range strings.Fields(string(b)) {
			fd, _ := strconv.Atoi(f)
			engine = append(engine, fd)
		}
		slices.Sort(engine)
		// ls reads the directory through one more descriptor, the lowest free.
		if len(engine) != 5 || !slices.Equal(engine[:3], []int{0, 1, 2}) || !slices.Contains(engine, launcher) {
			t.Fatalf("the Engine had descriptors %v; want 0, 1, 2, %d and the one ls reads with", engine, launcher)
		}
	})
}

// forEachRawKind runs f once per kind of raw gate, as a subtest.
func forEachRawKind(t *testing.T, f func(t *testing.T)) {
	forEachKind(t, func(t *testing.T, reExec bool) {
		if reExec {
			t.Skip("a raw gate's test")
		}
		f(t)
	})
}

// TestAnEnginePathMuchLongerThanItsArgv0Starts: the raw gate copies the
// Engine's path twice (for execve and for /bin/sh) beside argv; a path of
// thousands of bytes under a one-letter argv[0], as a deep directory on
// PATH gives, fits the gate's arena.
func TestAnEnginePathMuchLongerThanItsArgv0Starts(t *testing.T) {
	forEachKind(t, func(t *testing.T, reExec bool) {
		dir := t.TempDir()
		deep := dir
		for range 12 {
			deep = filepath.Join(deep, strings.Repeat("d", 200))
		}
		if err := os.MkdirAll(deep, 0o755); err != nil {
			t.Fatal(err)
		}
		prog := filepath.Join(deep, "sh")
		if err := os.Symlink("/bin/sh", prog); err != nil {
			t.Fatal(err)
		}
		g := startGateWith(t, Spec{
			Path:  prog,
			Argv:  []string{"s", "-c", `echo $$ > "$0"`, filepath.Join(dir, "ran")},
			Files: []int{0, 1, 2},
		})
		if err := g.Release(); err != nil {
			t.Fatal(err)
		}
		if err := g.ExecResult(); err != nil {
			t.Fatal(err)
		}
		if st := reap(t, g); !st.Exited || st.Code != 0 || !ran(dir) {
			t.Fatalf("Engine at a %d-byte path: status %v, ran %v; want it run, exit 0", len(prog), st, ran(dir))
		}
	})
}

// TestAStringWithANulIsRefusedAndNothingStarts: execve takes C strings,
// so a path, an argument or an environment entry with a NUL in it cannot
// be passed on as given: Spawn refuses it, and no gate is made.
func TestAStringWithANulIsRefusedAndNothingStarts(t *testing.T) {
	forEachKind(t, func(t *testing.T, reExec bool) {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		before := childrenNow(t)
		for _, spec := range []Spec{
			{Path: "/bin/s\x00h", Argv: []string{"sh"}},
			{Path: "/bin/sh", Argv: []string{"sh", "-c", "true\x00false"}},
			{Path: "/bin/sh", Argv: []string{"sh"}, Env: []string{"A=1\x002"}},
		} {
			spec.Exe, spec.ReExec, spec.Files = exe, reExec, []int{0, 1, 2}
			if g, err := Spawn(spec); err == nil {
				g.kill()
				t.Fatalf("Spawn(%q, %q, %q) made gate %d, want it refused", spec.Path, spec.Argv, spec.Env, g.PID)
			}
		}
		if after := childrenNow(t); !slices.Equal(after, before) {
			t.Fatalf("children %v after the refusals, %v before: want none made", after, before)
		}
	})
}

// childrenNow lists this process's children (every thread's).
func childrenNow(t *testing.T) []int {
	t.Helper()
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, task := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + task.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			pid, _ := strconv.Atoi(f)
			pids = append(pids, pid)
		}
	}
	slices.Sort(pids)
	return pids
}

// TestTheGateIsBornInTheSessionCgroup: given the session cgroup, every
// kind of gate is in it once it says ready, and so is the Engine it
// executes. The raw ones are made there by clone3 with CLONE_INTO_CGROUP
// (sharing memory, or forked by ForkInto): their cgroup.procs descriptor
// here is /dev/null, so only being born there puts them in. The
// re-executed one joins by writing cgroup.procs.
func TestTheGateIsBornInTheSessionCgroup(t *testing.T) {
	if sys.Pidless {
		t.Skip("the portable build has no cgroup containment")
	}
	place, err := cgroup.Locate()
	if err != nil {
		t.Skipf("no writable cgroup2 hierarchy: %v", err)
	}
	forEachKind(t, func(t *testing.T, reExec bool) {
		cg, err := cgroup.Create(place)
		if err != nil {
			t.Skipf("cannot make a cgroup: %v", err)
		}
		t.Cleanup(func() {
			_ = cgroup.Kill(cg.DirFD)
			for deadline := time.Now().Add(testproc.TooLong); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
				if busy, err := cgroup.Populated(cg.DirFD); err != nil || !busy {
					break
				}
			}
			if err := cg.Remove(); err != nil {
				t.Errorf("remove the test cgroup: %v", err)
			}
			cg.Close()
		})
		procs, err := cg.OpenProcs()
		if err != nil {
			t.Fatal(err)
		}
		defer sys.Close(procs)
		if !reExec {
			// A write of "0" here moves nobody.
			if procs, err = sys.Open("/dev/null", sys.O_WRONLY); err != nil {
				t.Fatal(err)
			}
			defer sys.Close(procs)
		}
		dir := t.TempDir()
		g := startGateWith(t, Spec{
			Path:        "/bin/sh",
			Argv:        []string{"sh", "-c", `cat /proc/self/cgroup > "$0"`, filepath.Join(dir, "ran")},
			Files:       []int{0, 1, 2},
			ReExec:      reExec,
			CgroupProcs: procs,
			CgroupDir:   cg.EngineFD,
		})
		if in, err := cg.HoldsEngine(g.PID); err != nil || !in {
			t.Fatalf("the ready gate is in the Engine's leaf of the session cgroup: %v (%v)", in, err)
		}
		if err := g.Release(); err != nil {
			t.Fatal(err)
		}
		if st := reap(t, g); !st.Exited || st.Code != 0 {
			t.Fatalf("Engine: %v, want exit 0", st)
		}
		out, err := os.ReadFile(filepath.Join(dir, "ran"))
		if err != nil || !strings.Contains(string(out), "::"+cg.EnginePath+"\n") {
			t.Fatalf("the Engine's /proc/self/cgroup = %q (%v), want the Engine's leaf %s", out, err, cg.EnginePath)
		}
	})
}

func TestTheEngineCommandLineGoesThroughTheSpecUnchanged(t *testing.T) {
	spec := Spec{Path: "/bin/sh", Argv: []string{"sh", "", "-c", "a\nb", "é\xff"}, Env: []string{"A=1", "", "B=x=y"}}
	fd, err := writeSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	path, argv, env, err := readSpec(fd) // it closes fd
	if err != nil || path != spec.Path || !slices.Equal(argv, spec.Argv) || !slices.Equal(env, spec.Env) {
		t.Fatalf("readSpec = %q, %q, %q, %v; want %q, %q, %q", path, argv, env, err, spec.Path, spec.Argv, spec.Env)
	}
	for _, bad := range []string{"", "1\x000\x00/bin/sh", "0\x000\x00/bin/sh\x00", "2\x000\x00/bin/sh\x00sh\x00", "1\x00-1\x00p\x00a\x00", "x\x000\x00p\x00a\x00"} {
		if _, _, _, err := parseSpec([]byte(bad)); err == nil {
			t.Errorf("parseSpec(%q) succeeded, want an error", bad)
		}
	}
}

// TestAGateWithoutArgvIsRefused: execve needs an argv[0]; neither kind of
// gate is started without one (the re-executed one exits before ready).
func TestAGateWithoutArgvIsRefused(t *testing.T) {
	forEachKind(t, func(t *testing.T, reExec bool) {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		g, err := start(Spec{Exe: exe, Path: "/bin/true", Files: []int{0, 1, 2}, ReExec: reExec})
		if err == nil {
			_ = g.Release()
			reap(t, g)
			g.Close()
			t.Fatal("Start without argv succeeded, want an error")
		}
	})
}
