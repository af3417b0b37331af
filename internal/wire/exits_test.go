package wire

import (
	"syscall"
	"testing"
)

func TestExitStatusForNotFoundIs127AndOtherwise126(t *testing.T) {
	for err, want := range map[error]int{syscall.ENOENT: 127, syscall.ENOTDIR: 127, syscall.EACCES: 126, syscall.ENOEXEC: 126, syscall.ETXTBSY: 126} {
		if got := ExitStatusFor(err); got != want {
			t.Errorf("ExitStatusFor(%v) = %d, want %d", err, got, want)
		}
	}
}
