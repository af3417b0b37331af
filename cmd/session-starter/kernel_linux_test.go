package main

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/session-starter/session-starter/internal/cgroup"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/testproc"
	"github.com/session-starter/session-starter/internal/wire"
)

func init() {
	testproc.Register("without-group-signal", withoutGroupSignal)
	testproc.Register("without-close-range", withoutCloseRange)
	testproc.Register("without-clone3", withoutClone3)
	testproc.Register("without-execveat", withoutExecveat)
}

// BPF for the seccomp filters below (x86_64).
const (
	ldW    = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	jeqK   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	retK   = unix.BPF_RET | unix.BPF_K
	arch   = 4       // offsetof(struct seccomp_data, arch)
	nr     = 0       // offsetof(struct seccomp_data, nr)
	arg3Lo = 16 + 24 // args[3], low 32 bits on little-endian x86_64
)

// withoutGroupSignal makes this thread's kernel answer EINVAL to
// pidfd_send_signal with PIDFD_SIGNAL_PROCESS_GROUP, as a kernel before
// 6.9 does, then executes args. The seccomp filter is inherited by
// everything the program starts.
func withoutGroupSignal(args []string) int {
	return execFiltered(args, []unix.SockFilter{
		{Code: ldW, K: arch},
		{Code: jeqK, Jt: 1, Jf: 0, K: unix.AUDIT_ARCH_X86_64},
		{Code: retK, K: unix.SECCOMP_RET_ALLOW},
		{Code: ldW, K: nr},
		{Code: jeqK, Jt: 0, Jf: 3, K: unix.SYS_PIDFD_SEND_SIGNAL},
		{Code: ldW, K: arg3Lo},
		{Code: jeqK, Jt: 0, Jf: 1, K: unix.PIDFD_SIGNAL_PROCESS_GROUP},
		{Code: retK, K: unix.SECCOMP_RET_ERRNO | uint32(unix.EINVAL)},
		{Code: retK, K: unix.SECCOMP_RET_ALLOW},
	}, func() bool {
		return unix.PidfdSendSignal(0, 0, nil, unix.PIDFD_SIGNAL_PROCESS_GROUP) == unix.EINVAL
	})
}

// withoutCloseRange makes the kernel answer ENOSYS to close_range, as a
// kernel before 5.9 does, then executes args.
func withoutCloseRange(args []string) int { return withoutSyscall(args, unix.SYS_CLOSE_RANGE) }

// withoutClone3 makes the kernel answer ENOSYS to clone3, as Docker's
// default seccomp profile does, then executes args.
func withoutClone3(args []string) int { return withoutSyscall(args, unix.SYS_CLONE3) }

// withoutExecveat makes the kernel answer ENOSYS to execveat, which the
// raw guard's porch executes the guard proper with, then executes args.
func withoutExecveat(args []string) int { return withoutSyscall(args, unix.SYS_EXECVEAT) }

// withoutSyscall makes the kernel answer ENOSYS to system call sysno,
// then executes args. Called with arguments that are all ones, the call
// would fail otherwise too, but not with ENOSYS: that tells the filter
// works.
func withoutSyscall(args []string, sysno uint32) int {
	return execFiltered(args, []unix.SockFilter{
		{Code: ldW, K: arch},
		{Code: jeqK, Jt: 1, Jf: 0, K: unix.AUDIT_ARCH_X86_64},
		{Code: retK, K: unix.SECCOMP_RET_ALLOW},
		{Code: ldW, K: nr},
		{Code: jeqK, Jt: 0, Jf: 1, K: sysno},
		{Code: retK, K: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)},
		{Code: retK, K: unix.SECCOMP_RET_ALLOW},
	}, func() bool {
		_, _, errno := unix.Syscall(uintptr(sysno), uintptr(^uint32(0)), uintptr(^uint32(0)), 0)
		return errno == unix.ENOSYS
	})
}

// execFiltered installs filter on this thread, checks with inEffect that
// it works, and executes args; the filter is inherited by everything the
// program starts.
func execFiltered(args []string, filter []unix.SockFilter, inEffect func() bool) int {
	runtime.LockOSThread() // the filter and the exec below must be on one thread
	if err := installFilter(filter); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	if !inEffect() {
		fmt.Fprintln(os.Stderr, "filter not in effect")
		return 3
	}
	err := syscall.Exec(args[0], args, os.Environ())
	fmt.Fprintln(os.Stderr, "exec:", err)
	return 3
}

// installFilter installs a seccomp filter on this thread, after
// no_new_privs, which an unprivileged filter needs.
func installFilter(filter []unix.SockFilter) error {
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	// Sound: prog and filter outlive the call, which copies the program.
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0); err != nil {
		return fmt.Errorf("seccomp: %w", err)
	}
	return nil
}

// The tests below emulate a kernel before Linux 6.9: a seccomp filter
// makes pidfd_send_signal with PIDFD_SIGNAL_PROCESS_GROUP fail with EINVAL.
// The starter then signals -E while the Engine is its unreaped child, and
// the guard pins E with a child of its own (group mode, so that no
// cgroup.kill does the guard's work).

// TestWithoutCloseRangeTheGateIsTheReExecutedBinary emulates a kernel
// before Linux 5.9: the raw gate needs close_range, so the gate is the
// binary started again in its hidden mode, and the session runs as ever.
// Without the filter the gate is the raw clone (the control).
func TestWithoutCloseRangeTheGateIsTheReExecutedBinary(t *testing.T) {
	if portable {
		t.Skip("the portable build takes macOS's path: its gate is always the re-executed binary")
	}
	heldWithAndWithout(t, "without-close-range", nil, func(filtered bool, starter, g int) {
		if reExec := cmdlineHas(g, wire.HiddenArg("gate")); reExec != filtered {
			t.Fatalf("close_range filtered %v: gate %d runs the hidden mode: %v, want %v", filtered, g, reExec, filtered)
		}
	})
}

// TestWhereClone3IsRefusedTheRawGateJoinsTheSessionCgroup: in cgroup
// mode the raw gate is born in the session cgroup (clone3 with
// CLONE_INTO_CGROUP); under a seccomp profile that answers clone3 ENOSYS,
// as Docker's default does, it is forked with clone instead and joins the
// session cgroup by writing its cgroup.procs, and the session runs as
// ever. Without the filter the same holds (the control).
func TestWhereClone3IsRefusedTheRawGateJoinsTheSessionCgroup(t *testing.T) {
	if portable {
		t.Skip("the portable build takes macOS's path: its gate is always the re-executed binary")
	}
	needsCgroup(t)
	heldWithAndWithout(t, "without-clone3", []string{"--containment", "cgroup"}, func(filtered bool, starter, g int) {
		if cmdlineHas(g, wire.HiddenArg("gate")) {
			t.Fatalf("clone3 filtered %v: gate %d is the re-executed binary, want the raw one", filtered, g)
		}
		if cg := engineCgroup(t, g); path.Base(cg) != cgroup.EngineLeaf || !strings.HasPrefix(path.Base(path.Dir(cg)), cgroup.Prefix) {
			t.Fatalf("clone3 filtered %v: gate %d is in cgroup %q, want the session cgroup", filtered, g, cg)
		}
	})
}

// heldWithAndWithout runs a session held at its ack twice, under the
// seccomp filter of helper and without it (the control), calls check
// with the starter's and the waiting gate's PIDs, then lets the Engine
// run and ends the session.
func heldWithAndWithout(t *testing.T, helper string, flags []string, check func(filtered bool, starter, gate int)) {
	t.Helper()
	if runtime.GOARCH != "amd64" {
		t.Skip("the seccomp filter is written for x86_64")
	}
	for _, filtered := range []bool{true, false} {
		mark := newMark(t)
		dir := t.TempDir()
		cmd := exec.Command(binary, holdArgs(flags...)...)
		cmd.Env = append(os.Environ(), markVar+"="+mark)
		if filtered {
			cmd = helperCommand(t, mark, helper, append([]string{binary}, holdArgs(flags...)...)...)
		}
		cmd, stderr, release := holdCmdAtAck(t, cmd, dir)
		// The helper executed the starter: its PID is the starter's.
		check(filtered, cmd.Process.Pid, childWith(t, cmd.Process.Pid, wire.GateComm))
		release()
		if !waitFile(filepath.Join(dir, "ran"), testproc.TooLong) {
			t.Fatalf("%s %v: the Engine did not run; stderr:\n%s", helper, filtered, stderr)
		}
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		noSurvivors(t, mark)
	}
}

func withoutGroupSignalCommand(t *testing.T, mark string, args ...string) *exec.Cmd {
	t.Helper()
	if runtime.GOARCH != "amd64" {
		t.Skip("the seccomp filter is written for x86_64")
	}
	return helperCommand(t, mark, "without-group-signal", append([]string{binary}, args...)...)
}

func TestWithoutGroupSignalTheSessionEndsItsTreeAndMirrors(t *testing.T) {
	mark := newMark(t)
	cmd := withoutGroupSignalCommand(t, mark, "--ack", "--containment", "group", "--", "sh", "-c", "sleep 600 & (sleep 600 &); exit 3")
	s := startCmd(t, mark, cmd)
	s.ack()
	wantExit(t, s.wait(), 3, s.stderr)
	noSurvivors(t, mark)
}

func TestWithoutGroupSignalThePinnedGuardEndsTheTree(t *testing.T) {
	mark := newMark(t)
	cmd := withoutGroupSignalCommand(t, mark, "--ack", "--containment", "group", "--", "sh", "-c", treeEngine)
	s := startCmd(t, mark, cmd)
	pid := s.ack()
	if got := s.line(); got != "ready" {
		t.Fatalf("Engine said %q, want ready", got)
	}
	// The helper executed the starter: its PID is the starter's.
	guard := guardOf(t, s.cmd.Process.Pid)
	pins := childrenOf(guard)
	if len(pins) != 1 {
		t.Fatalf("guard %d has children %v, want its one pin", guard, pins)
	}
	if pg, err := syscall.Getpgid(pins[0]); err != nil || pg != pid {
		t.Fatalf("the pin is in group %d (%v), want the Engine's %d", pg, err, pid)
	}
	guardFD := pidfdOf(t, guard)
	s.signal(syscall.SIGKILL)
	s.wait()
	noSurvivors(t, mark)
	awaitExit(t, guardFD, "the guard must exit once the group is ended")
}

// TestWithoutGroupSignalAGracefulEndIsNotHeldUpByThePin: the guard's pin
// is a member of E, but no member of the session; a graceful end whose
// processes all exited at the stop signal must not wait out the grace
// for it. USR2, which the pin (a Go program) catches and ignores.
func TestWithoutGroupSignalAGracefulEndIsNotHeldUpByThePin(t *testing.T) {
	mark := newMark(t)
	cmd := withoutGroupSignalCommand(t, mark, "--ack", "--containment", "group", "--grace", "1h", "--stop-signal", "USR2", "--", "sh", "-c", "echo ready; exec sleep 600")
	s := startCmd(t, mark, cmd)
	s.ack()
	if got := s.line(); got != "ready" {
		t.Fatalf("Engine said %q, want ready", got)
	}
	s.signal(syscall.SIGTERM)
	// Within testproc.TooLong, not the hour of grace; the Engine died of USR2.
	wantSignal(t, s.wait(), syscall.SIGUSR2, s.stderr)
	noSurvivors(t, mark)
}

// TestWhereTheGuardProperCannotBeExecutedThePorchEndsTheTree: the raw
// guard's porch strikes every holder once the starter is gone, and then
// executes the guard proper; under a seccomp profile that refuses
// execveat, it goes on striking by itself until the tree is empty — in
// group mode and in cgroup mode, the starter SIGKILLed.
func TestWhereTheGuardProperCannotBeExecutedThePorchEndsTheTree(t *testing.T) {
	if !rawGuard() {
		t.Skip("no raw guard here (Linux 6.9, the native build)")
	}
	if runtime.GOARCH != "amd64" {
		t.Skip("the seccomp filter is written for x86_64")
	}
	for _, mode := range []string{"group", "cgroup"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "cgroup" {
				needsCgroup(t)
			}
			mark := newMark(t)
			cmd := helperCommand(t, mark, "without-execveat", binary, "--ack", "--containment", mode, "--", "sh", "-c", treeEngine)
			s := startCmd(t, mark, cmd)
			s.ack()
			if got := s.line(); got != "ready" {
				t.Fatalf("Engine said %q, want ready", got)
			}
			guard := pidfdOf(t, guardOf(t, s.cmd.Process.Pid))
			s.signal(syscall.SIGKILL)
			wantSignal(t, s.wait(), syscall.SIGKILL, s.stderr)
			noSurvivors(t, mark)
			awaitExit(t, guard, "the porch must exit once the tree is ended")
		})
	}
}

// The running kernel's features, for the tests whose expectation depends
// on them (scripts/vm/run runs the suite on older kernels too).

// guardPins reports whether the product's guard pins group E with a child
// of its own: where the kernel cannot signal a group through a pidfd
// (before Linux 6.9), and always in the portable build.
func guardPins() bool { return !sys.CanSignalGroup() }

// pidfdShowsCgroup reports whether the kernel tells a process's cgroup
// through its pidfd (PIDFD_GET_INFO with PIDFD_INFO_CGROUPID, Linux
// 6.13): only then does cgroup mode's --grace signal every member of the
// session cgroup.
func pidfdShowsCgroup(t *testing.T) bool {
	t.Helper()
	fd, err := sys.PidfdOpen(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	defer sys.Close(fd)
	_, ok, err := sys.PidfdCgroupID(fd)
	return err == nil && ok
}

// kernelAtLeast reports whether the running kernel's release is major.minor
// or later.
func kernelAtLeast(t *testing.T, major, minor int) bool {
	t.Helper()
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		t.Fatal(err)
	}
	var ma, mi int
	if _, err := fmt.Sscanf(unix.ByteSliceToString(u.Release[:]), "%d.%d", &ma, &mi); err != nil {
		t.Fatalf("kernel release %q: %v", u.Release[:], err)
	}
	return ma > major || ma == major && mi >= minor
}

// vmVar is set by scripts/vm/run in its guest, a kernel booted under an
// emulator that forks 20 to 45 times slower than the host.
const vmVar = "SESSION_STARTER_TEST_VM"

// skipUnderEmulator skips a test whose outcome depends on the machine's
// speed (a rate, a deadline) when it runs in scripts/vm/run's guest.
func skipUnderEmulator(t *testing.T, why string) {
	t.Helper()
	if os.Getenv(vmVar) == "1" {
		t.Skipf("under scripts/vm/run's emulated CPU (%s=1), %s", vmVar, why)
	}
}

// needsPidMaxPerNamespace skips a test that sets pid_max in a PID
// namespace of its own where that would set the whole machine's: pid_max
// is per namespace only from Linux 6.14, and before, the write from a
// child namespace goes to the one global limit.
func needsPidMaxPerNamespace(t *testing.T) {
	t.Helper()
	if !kernelAtLeast(t, 6, 14) {
		t.Skip("pid_max is per PID namespace only from Linux 6.14; here setting it would lower the whole machine's")
	}
}
