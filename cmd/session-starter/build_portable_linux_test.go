//go:build portable

package main

// The portable suite: the product is built with -tags portable, which
// takes the code paths of macOS (signals by number under the pinning
// rules, no subreaper, no cgroup, no pidfd for signalling or identity),
// and every run of it goes through this test binary, installed as
// "session-starter" next to it, which installs a seccomp filter that
// refuses pidfd_send_signal and PR_SET_CHILD_SUBREAPER and then executes
// the product: a path that still used either would fail.

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

const portable = true

var buildFlags = []string{"-tags", "portable"}

// productName names the product next to the launcher that runs it:
// shorter than "session-starter", so that a command line the launcher
// could be executed with fits the product's execve too.
const productName = "portable"

func productPath(binary string) string { return filepath.Join(filepath.Dir(binary), productName) }

// installLauncher copies this test binary to binary, as the launcher of
// the product.
func installLauncher(binary string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	b, err := os.ReadFile(self)
	if err != nil {
		return err
	}
	return os.WriteFile(binary, b, 0o755)
}

// asLauncher runs this test binary as the launcher when it was started as
// "session-starter": it never returns then.
func asLauncher() bool {
	if filepath.Base(os.Args[0]) != "session-starter" {
		return false
	}
	self, err := os.Executable()
	if err == nil {
		err = refusePidfdSignalAndSubreaper()
	}
	if err == nil {
		err = syscall.Exec(productPath(self), os.Args, os.Environ())
	}
	fmt.Fprintln(os.Stderr, "portable launcher:", err)
	os.Exit(3)
	return true
}

// refusePidfdSignalAndSubreaper makes this thread's kernel answer ENOSYS
// to every pidfd_send_signal, as a kernel before 5.1 does, and EINVAL to
// prctl(PR_SET_CHILD_SUBREAPER), as a kernel without subreapers does.
// The filter is inherited by everything the program starts.
func refusePidfdSignalAndSubreaper() error {
	runtime.LockOSThread() // the filter and the exec must be on one thread
	if runtime.GOARCH != "amd64" {
		return fmt.Errorf("the seccomp filter is written for x86_64, not %s", runtime.GOARCH)
	}
	const (
		ldW    = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeqK   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		retK   = unix.BPF_RET | unix.BPF_K
		arch   = 4  // offsetof(struct seccomp_data, arch)
		nr     = 0  // offsetof(struct seccomp_data, nr)
		arg0Lo = 16 // args[0], low 32 bits on little-endian x86_64
	)
	filter := []unix.SockFilter{
		{Code: ldW, K: arch},
		{Code: jeqK, Jt: 1, Jf: 0, K: unix.AUDIT_ARCH_X86_64},
		{Code: retK, K: unix.SECCOMP_RET_ALLOW},
		{Code: ldW, K: nr},
		{Code: jeqK, Jt: 0, Jf: 1, K: unix.SYS_PIDFD_SEND_SIGNAL},
		{Code: retK, K: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)},
		{Code: jeqK, Jt: 0, Jf: 3, K: unix.SYS_PRCTL},
		{Code: ldW, K: arg0Lo},
		{Code: jeqK, Jt: 0, Jf: 1, K: unix.PR_SET_CHILD_SUBREAPER},
		{Code: retK, K: unix.SECCOMP_RET_ERRNO | uint32(unix.EINVAL)},
		{Code: retK, K: unix.SECCOMP_RET_ALLOW},
	}
	if err := installFilter(filter); err != nil {
		return err
	}
	if err := unix.PidfdSendSignal(0, 0, nil, 0); err != unix.ENOSYS {
		return fmt.Errorf("filter not in effect: pidfd_send_signal: %v", err)
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != unix.EINVAL {
		return fmt.Errorf("filter not in effect: PR_SET_CHILD_SUBREAPER: %v", err)
	}
	return nil
}

// needsSubreaper skips a test of the subreaper sweep: the portable build
// has none, as macOS has none.
func needsSubreaper(t *testing.T) {
	t.Helper()
	t.Skip("needs the subreaper sweep; the portable build takes macOS's path, which has no subreaper")
}

// needsCgroup skips a test of cgroup containment: the portable build has
// none, as macOS has none.
func needsCgroup(t *testing.T) {
	t.Helper()
	t.Skip("needs a session cgroup; the portable build takes macOS's path, which has no cgroup")
}

// rawGuard reports false: the portable build's guard is the re-executed
// binary, as on macOS.
func rawGuard() bool { return false }
