//go:build linux && !portable && !session_starter_noraw && go1.26 && !go1.28 && (amd64 || arm64)

package rawfork

import (
	"os"
	"strings"
	"syscall"
	"unsafe"
)

// arena is memory mapped outside the Go heap for a raw child: everything
// it reads or writes. The garbage collector neither scans, moves nor
// frees it. A forked child has its own copy from the fork on: the parent
// frees its arena ([arena.Free]) then.
type arena struct {
	mem []byte
	off int
}

// newArena maps size bytes.
func newArena(size int) (*arena, error) {
	page := os.Getpagesize()
	total := (size + page - 1) &^ (page - 1)
	mem, err := syscall.Mmap(-1, 0, total, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS)
	if err != nil {
		return nil, os.NewSyscallError("mmap", err)
	}
	return &arena{mem: mem}, nil
}

// cSize is what an arena needs for the C strings of each of sss and a
// NULL-terminated array of them, aligned.
func cSize(sss ...[]string) int {
	const word = int(unsafe.Sizeof(uintptr(0)))
	size := 0
	for _, ss := range sss {
		size += (len(ss) + 2) * word
		for _, s := range ss {
			size += len(s) + 1
		}
	}
	return size
}

// Alloc returns n zeroed bytes aligned to align (a power of two), or nil
// when the arena is full.
func (a *arena) Alloc(n, align int) unsafe.Pointer {
	off := (a.off + align - 1) &^ (align - 1)
	if off+n > len(a.mem) {
		return nil
	}
	a.off = off + n
	// Sound: off+n is within mem, which the garbage collector never
	// scans or frees.
	return unsafe.Pointer(&a.mem[off])
}

// CString copies s with a NUL after it; nil if s holds a NUL or the
// arena is full.
func (a *arena) CString(s string) *byte {
	p := a.Alloc(len(s)+1, 1)
	if p == nil || strings.IndexByte(s, 0) >= 0 {
		return nil
	}
	copy(unsafe.Slice((*byte)(p), len(s)), s)
	return (*byte)(p)
}

// CStrings copies ss as a NULL-terminated array of C strings; nil if one
// does not fit or holds a NUL.
func (a *arena) CStrings(ss []string) **byte {
	p := a.Alloc((len(ss)+1)*int(unsafe.Sizeof(uintptr(0))), int(unsafe.Alignof(uintptr(0))))
	if p == nil {
		return nil
	}
	arr := unsafe.Slice((**byte)(p), len(ss)+1)
	for i, s := range ss {
		if arr[i] = a.CString(s); arr[i] == nil {
			return nil
		}
	}
	return (**byte)(p)
}

// Int32s copies v into the arena as int32s and returns its first
// element; nil if v is empty or does not fit.
func (a *arena) Int32s(v []int) *int32 {
	if len(v) == 0 {
		return nil
	}
	p := a.Alloc(len(v)*4, 4)
	if p == nil {
		return nil
	}
	arr := unsafe.Slice((*int32)(p), len(v))
	for i, x := range v {
		arr[i] = int32(x)
	}
	return (*int32)(p)
}

// bounds is the arena's first address and the one after its last page.
func (a *arena) bounds() (lo, hi uintptr) {
	// Sound: mem is a mapping, which does not move.
	lo = uintptr(unsafe.Pointer(&a.mem[0]))
	return lo, lo + uintptr(len(a.mem))
}

// Free unmaps the arena.
func (a *arena) Free() {
	if a.mem != nil {
		_ = syscall.Munmap(a.mem)
		a.mem = nil
	}
}
