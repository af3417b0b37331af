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

// maxRoomDoublings bounds how often listWithRoom doubles its room: from
// the 64 spare entries of a first try, 16 doublings give room for four
// million entries, more than any process table holds.
const maxRoomDoublings = 16

// listWithRoom fills a list of which the kernel fills a prefix and never
// says how long the whole would be, as PROC_REAP_GETPIDS does: fill(list)
// fills list from its first entry (the rest is left as it was, zero), and
// filled tells an entry it filled. A list whose last entry comes back
// filled may have been cut short, so it is filled again with twice the
// room, until its last entry is left empty. It returns the filled
// entries, room for n at first (one at least).
func listWithRoom[T any](n int, fill func(list []T) error, filled func(*T) bool) ([]T, error) {
	n = max(n, 1)
	for range maxRoomDoublings {
		list := make([]T, n)
		if err := fill(list); err != nil {
			return nil, err
		}
		if !filled(&list[n-1]) {
			end := 0
			for end < n && filled(&list[end]) {
				end++
			}
			return list[:end], nil
		}
		n *= 2
	}
	return nil, fmt.Errorf("the list still filled all its %d entries after %d doublings", n/2, maxRoomDoublings)
}
