//go:build linux && !portable && !session_starter_noraw && go1.26 && !go1.28 && (amd64 || arm64)

package rawfork

import (
	"fmt"
	"os"
	"syscall"
	"testing"
	"unsafe"
)

// TestThePorchGivesBackOnlyPrivateAnonymousWritableMappings feeds the
// porch's maps reader lines for the pages of a mapping of its own, all
// written to: a page given back reads zero again, a page kept still holds
// what was written. Only the private, anonymous, writable pages without
// a file are given back (named "[anon:NAME]", as Go names its heap, or
// not named at all), and never one of a kept range.
func TestThePorchGivesBackOnlyPrivateAnonymousWritableMappings(t *testing.T) {
	page := os.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 12*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(mem)
	for i := range mem {
		mem[i] = 0xaa
	}
	base := uintptr(unsafe.Pointer(&mem[0]))
	at := func(i int) uintptr { return base + uintptr(i*page) }
	lines := []struct {
		from, to int
		rest     string
		given    bool
	}{
		{0, 1, "rw-p 00000000 00:00 0 ", true},
		{1, 2, "r--p 00000000 00:00 0", false},
		{2, 3, "rw-s 00000000 00:00 0", false},
		{3, 4, "rw-p 00002000 fe:00 10019856                           /usr/bin/x", false},
		{4, 5, "rw-p 00000000 00:00 0                          [heap]", false},
		{5, 8, "rw-p 00000000 00:00 0", true}, // but for page 6, kept
		{8, 9, "rw-p 00000000 00:05 1234", false},
		{9, 10, "rw-p 00000000 00:00 0                          [anon: Go: heap]", true},
		{10, 11, "rw-p 00000000 00:00 0                          [anon:x]", true},
		{11, 12, "rw-p 00000000 00:00 0                          [ano", false},
	}
	var maps []byte
	for _, l := range lines {
		maps = fmt.Appendf(maps, "%x-%x %s\n", at(l.from), at(l.to), l.rest)
	}
	c := new(porchChild)
	c.selfLo, c.selfHi = at(6), at(7)
	c.n = uintptr(copy(c.mapsBuf[:], maps))
	c.field, c.at, c.lo, c.hi, c.live, c.gap, c.named = 0, 0, 0, 0, true, false, false
	for c.i = 0; c.i < c.n; c.i++ {
		porchShedByte(c, c.mapsBuf[c.i&mapsMask])
	}
	for _, l := range lines {
		for p := l.from; p < l.to; p++ {
			want := byte(0xaa)
			if l.given && p != 6 {
				want = 0
			}
			if got := mem[p*page]; got != want {
				t.Errorf("page %d (%q) holds %#x, want %#x", p, l.rest, got, want)
			}
		}
	}
}

// TestThePorchReadsTheCgroupEmptyFromItsEventsFirstLine: "populated 0"
// on the first line of cgroup.events is empty; anything else errs
// towards not empty; no cgroup is empty.
func TestThePorchReadsTheCgroupEmptyFromItsEventsFirstLine(t *testing.T) {
	c := new(porchChild)
	c.cgEvents = -1
	if !porchCgroupEmpty(c) {
		t.Fatal("without a cgroup: not empty, want empty")
	}
	for events, want := range map[string]bool{
		"populated 0\nfrozen 0\n": true,
		"populated 1\nfrozen 0\n": false,
		"populated 0":             true,
		"populated ":              false,
		"frozen 0\npopulated 0\n": false,
		"":                        false,
	} {
		f, err := os.CreateTemp(t.TempDir(), "cgroup.events")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(events); err != nil {
			t.Fatal(err)
		}
		c.cgEvents = int32(f.Fd())
		if got := porchCgroupEmpty(c); got != want {
			t.Errorf("cgroup.events %q: empty %v, want %v", events, got, want)
		}
		f.Close()
	}
}
