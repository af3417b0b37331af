//go:build unix

package sys

import (
	"errors"
	"syscall"
	"testing"
)

func TestCloseFDsClosesEachOpenDescriptorOnceAndMarksItClosed(t *testing.T) {
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil {
		t.Fatal(err)
	}
	r, w, none := p[0], p[1], -1
	CloseFDs(&r, &none, &w)
	if r != -1 || w != -1 || none != -1 {
		t.Fatalf("after CloseFDs the descriptors are %d %d %d, want -1 each", r, w, none)
	}
	// Checked at once: nothing in this test opens a descriptor that
	// could take either number back.
	for _, fd := range p {
		if _, err := CloseOnExec(fd); !errors.Is(err, ErrBadFD) {
			t.Errorf("descriptor %d after CloseFDs: %v, want %v", fd, err, ErrBadFD)
		}
	}
	CloseFDs(&r, &w) // closes nothing: both are -1
}
