//go:build darwin || freebsd || linux

package proc

import (
	"os"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// TestInheritableListsTheDescriptorsAChildWouldInherit: of a pipe, the
// end made inheritable is listed and the close-on-exec end is not; 0-2
// never are.
func TestInheritableListsTheDescriptorsAChildWouldInherit(t *testing.T) {
	r, w, err := os.Pipe() // both close-on-exec
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if _, err := unix.FcntlInt(w.Fd(), unix.F_SETFD, 0); err != nil {
		t.Fatal(err)
	}
	got := Inheritable()
	if !slices.Contains(got, int(w.Fd())) || slices.Contains(got, int(r.Fd())) {
		t.Errorf("Inheritable() = %v: want %d (inheritable) in it and %d (close-on-exec) not", got, w.Fd(), r.Fd())
	}
	if slices.ContainsFunc(got, func(fd int) bool { return fd < 3 }) {
		t.Errorf("Inheritable() = %v lists a descriptor under 3", got)
	}
}
