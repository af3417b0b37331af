package proc

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// EnvironOfProcArgs returns the environment in b, the answer of macOS's
// sysctl KERN_PROCARGS2 (kern.procargs2) for a process, as entries each
// ended by a NUL (the form of Linux's /proc/PID/environ). XNU lays the
// blob out as a 32-bit argc (little-endian on both ports), the executable
// path with its NUL, NUL padding, the argc strings of argv each with its
// NUL, then the environment (followed by the kernel's "apple" strings,
// executable_path= and the like, which no caller looks for).
//
// argv is skipped by its count, never by its look: an argument that reads
// "NAME=value" (`env NAME=value cmd` leaves it in argv when env is not the
// program run) is argv, and is not returned. The padding is every NUL
// after the path, so an empty argv[0] is taken for padding and one string
// more is skipped: the environment then returned starts late, and may miss
// an entry, but never holds an argument. A blob that ends before argc
// strings (truncated, or an argc larger than the strings) is an error
// wrapping ErrMalformed, with no environment.
func EnvironOfProcArgs(b []byte) ([]byte, error) {
	if len(b) < 4 {
		return nil, fmt.Errorf("%w: procargs of %d bytes, no argc", ErrMalformed, len(b))
	}
	argc := int32(binary.LittleEndian.Uint32(b))
	if argc < 0 {
		return nil, fmt.Errorf("%w: procargs argc %d", ErrMalformed, argc)
	}
	rest := b[4:]
	path := bytes.IndexByte(rest, 0)
	if path < 0 {
		return nil, fmt.Errorf("%w: procargs executable path without its NUL", ErrMalformed)
	}
	rest = bytes.TrimLeft(rest[path:], "\x00")
	for n := range argc {
		end := bytes.IndexByte(rest, 0)
		if end < 0 {
			return nil, fmt.Errorf("%w: procargs ends in argument %d of %d", ErrMalformed, n, argc)
		}
		rest = rest[end+1:]
	}
	return rest, nil
}
