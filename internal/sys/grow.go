package sys

import (
	"errors"
	"fmt"
	"syscall"
)

// maxGrowths bounds how often readGrowing grows its buffer and reads
// again: each growth is a tenth, so 64 of them give 445 times the
// kernel's first estimate — a table that outgrows that while it is read
// is not one a listing can keep up with, and the read fails (ENOMEM)
// rather than loop.
const maxGrowths = 64

// readGrowing reads a kernel table that can grow between the question of
// its size and the read, as a kern.proc listing does: call(nil) returns
// the kernel's estimate of the size in bytes, call(buf) fills buf and
// returns how many bytes it wrote, or ENOMEM when buf was too small for
// the table as it is now. As libkvm's kvm_getprocs does, the buffer is
// the estimate grown by a tenth, and is grown by a tenth again (by one
// byte at least) and read again while the answer is ENOMEM. Any other
// error is returned as it is.
func readGrowing(call func(buf []byte) (int, error)) ([]byte, error) {
	size, err := call(nil)
	if err != nil || size == 0 {
		return nil, err
	}
	for range maxGrowths {
		size += max(size/10, 1)
		buf := make([]byte, size)
		n, err := call(buf)
		if errors.Is(err, syscall.ENOMEM) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n > len(buf) {
			return nil, fmt.Errorf("the kernel wrote %d bytes into %d", n, len(buf))
		}
		return buf[:n], nil
	}
	return nil, fmt.Errorf("the table outgrew %d bytes %d times: %w", size, maxGrowths, syscall.ENOMEM)
}
