package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

func init() {
	helpers["without-group-signal"] = withoutGroupSignal
}

// withoutGroupSignal makes this thread's kernel answer EINVAL to
// pidfd_send_signal with PIDFD_SIGNAL_PROCESS_GROUP, as a kernel before
// 6.9 does, then executes args. The seccomp filter is inherited by
// everything the program starts.
func withoutGroupSignal(args []string) int {
	runtime.LockOSThread() // the filter and the exec below must be on one thread
	const (
		ldW    = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeqK   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		retK   = unix.BPF_RET | unix.BPF_K
		arch   = 4       // offsetof(struct seccomp_data, arch)
		nr     = 0       // offsetof(struct seccomp_data, nr)
		arg3Lo = 16 + 24 // args[3], low 32 bits on little-endian x86_64
	)
	filter := []unix.SockFilter{
		{Code: ldW, K: arch},
		{Code: jeqK, Jt: 1, Jf: 0, K: unix.AUDIT_ARCH_X86_64},
		{Code: retK, K: unix.SECCOMP_RET_ALLOW},
		{Code: ldW, K: nr},
		{Code: jeqK, Jt: 0, Jf: 3, K: unix.SYS_PIDFD_SEND_SIGNAL},
		{Code: ldW, K: arg3Lo},
		{Code: jeqK, Jt: 0, Jf: 1, K: unix.PIDFD_SIGNAL_PROCESS_GROUP},
		{Code: retK, K: unix.SECCOMP_RET_ERRNO | uint32(unix.EINVAL)},
		{Code: retK, K: unix.SECCOMP_RET_ALLOW},
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		fmt.Fprintln(os.Stderr, "no_new_privs:", err)
		return 3
	}
	// Sound: prog and filter outlive the call, which copies the program.
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0); err != nil {
		fmt.Fprintln(os.Stderr, "seccomp:", err)
		return 3
	}
	if err := unix.PidfdSendSignal(0, 0, nil, unix.PIDFD_SIGNAL_PROCESS_GROUP); err != unix.EINVAL {
		fmt.Fprintln(os.Stderr, "filter not in effect:", err)
		return 3
	}
	err := syscall.Exec(args[0], args, os.Environ())
	fmt.Fprintln(os.Stderr, "exec:", err)
	return 3
}

// TestKernelWithoutGroupSignalIsRefusedWithNothingExecuted emulates a
// kernel before 6.9: the guard cannot signal the group safely, so the
// session is refused, the missing feature named, and nothing runs.
func TestKernelWithoutGroupSignalIsRefusedWithNothingExecuted(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the seccomp filter is written for x86_64")
	}
	mark := newMark(t)
	dir := t.TempDir()
	cmd := helperCommand(t, mark, "without-group-signal", binary, "--ack", "--", "touch", "ran")
	cmd.Dir = dir
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 125 {
		t.Fatalf("session-starter under the filter: %v, want exit 125; stderr: %s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "PIDFD_SIGNAL_PROCESS_GROUP") {
		t.Fatalf("stderr = %q, want the missing feature named", stderr.String())
	}
	if stdout.Len() != 0 {
		t.Fatalf("stdout = %q, want no ack", stdout.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Fatal("the Engine ran, want nothing executed")
	}
	noSurvivors(t, mark)
}
