package starter

import (
	"errors"
	"os"
	"os/exec"
	"testing"

	"golang.org/x/sys/windows"
)

// TestAParentCreatedAfterUsIsAReusedPID: a process that holds the
// recorded parent ID but was created after this one cannot be the parent.
func TestAParentCreatedAfterUsIsAReusedPID(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// os/exec holds a handle to it until Wait, so its process object and
	// ID stay whether or not it has exited by the check.
	later := exec.Command(exe, "-test.run=^$")
	if err := later.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = later.Wait() }()
	if h, err := openParent(later.Process.Pid); !errors.Is(err, errParentGone) {
		_ = windows.CloseHandle(h)
		t.Errorf("openParent(a process created later) = %v, want errParentGone", err)
	}
	h, err := openParent(os.Getpid())
	if err != nil {
		t.Fatalf("openParent(a process created no later than this one) = %v", err)
	}
	_ = windows.CloseHandle(h)
}
