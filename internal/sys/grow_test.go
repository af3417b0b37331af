package sys

import (
	"bytes"
	"errors"
	"syscall"
	"testing"
)

// growingTable stands in for the kernel's side of a kern.proc listing: a
// table of records whose estimate has room for slack more (FreeBSD's has
// room for five), that gains burst records right after the estimate
// (processes forked meanwhile), and that answers ENOMEM, having written
// what fitted, to a buffer too small.
type growingTable struct {
	records, burst, slack, size int
	reads                       int
}

func (g *growingTable) call(buf []byte) (int, error) {
	if buf == nil {
		defer func() { g.records += g.burst }()
		return (g.records + g.slack) * g.size, nil
	}
	g.reads++
	need := g.records * g.size
	if len(buf) < need {
		copy(buf, bytes.Repeat([]byte{1}, len(buf)))
		return len(buf), syscall.ENOMEM
	}
	copy(buf, bytes.Repeat([]byte{1}, need))
	return need, nil
}

// TestAListingThatGrowsPastTheEstimateIsReadAgainInABiggerBuffer: more
// new processes between the estimate and the read than the estimate has
// room for make the kernel answer ENOMEM; the read is made again, in a
// buffer grown each time, until the table fits.
func TestAListingThatGrowsPastTheEstimateIsReadAgainInABiggerBuffer(t *testing.T) {
	const size = 1088
	g := &growingTable{records: 100, burst: 30, slack: 5, size: size}
	b, err := readGrowing(g.call)
	if err != nil {
		t.Fatalf("readGrowing() = %v, want the table", err)
	}
	if len(b) != 130*size {
		t.Fatalf("readGrowing() = %d bytes, want the 130 records", len(b))
	}
	if g.reads < 2 {
		t.Fatalf("readGrowing() read %d times, want a read again after ENOMEM", g.reads)
	}
}

func TestAListingThatFitsIsReadOnce(t *testing.T) {
	g := &growingTable{records: 3, slack: 5, size: 1088}
	b, err := readGrowing(g.call)
	if err != nil || len(b) != 3*1088 || g.reads != 1 {
		t.Fatalf("readGrowing() = %d bytes, %v after %d reads; want 3 records at the first read", len(b), err, g.reads)
	}
}

func TestAnEmptyListingIsNoBytes(t *testing.T) {
	b, err := readGrowing(func([]byte) (int, error) { return 0, nil })
	if err != nil || b != nil {
		t.Fatalf("readGrowing() = %v, %v; want nothing", b, err)
	}
}

// TestATableThatAlwaysOutgrowsTheBufferFails: a read never stops on its
// own; it fails, with ENOMEM.
func TestATableThatAlwaysOutgrowsTheBufferFails(t *testing.T) {
	reads := 0
	_, err := readGrowing(func(buf []byte) (int, error) {
		if buf == nil {
			return 1088, nil
		}
		reads++
		return len(buf), syscall.ENOMEM
	})
	if !errors.Is(err, syscall.ENOMEM) || reads != maxGrowths {
		t.Fatalf("readGrowing() = %v after %d reads, want ENOMEM after %d", err, reads, maxGrowths)
	}
}

func TestAnotherErrorOfTheReadIsReturned(t *testing.T) {
	_, err := readGrowing(func(buf []byte) (int, error) {
		if buf == nil {
			return 1088, nil
		}
		return 0, syscall.EPERM
	})
	if !errors.Is(err, syscall.EPERM) {
		t.Fatalf("readGrowing() = %v, want EPERM", err)
	}
}

// entry is one entry of a list the kernel fills, as a
// procctl_reaper_pidinfo with its valid flag.
type entry struct {
	pid   int
	valid bool
}

// descendants stands in for PROC_REAP_GETPIDS: it fills as many entries
// of the list as it has room for, newest first, and leaves the rest.
func descendants(n int) func([]entry) error {
	return func(list []entry) error {
		for i := range min(n, len(list)) {
			list[i] = entry{pid: 1000 + i, valid: true}
		}
		return nil
	}
}

func valid(e *entry) bool { return e.valid }

// TestAListCutShortIsFilledAgainWithMoreRoom: more descendants than the
// room (processes forked between the count and the list) fill every
// entry; the list is asked for again, bigger, until one is left empty,
// and none is dropped.
func TestAListCutShortIsFilledAgainWithMoreRoom(t *testing.T) {
	got, err := listWithRoom(10, descendants(200), valid)
	if err != nil || len(got) != 200 {
		t.Fatalf("listWithRoom(10) of 200 = %d entries, %v; want all 200", len(got), err)
	}
	for i, e := range got {
		if e.pid != 1000+i {
			t.Fatalf("entry %d = %+v, want pid %d", i, e, 1000+i)
		}
	}
}

// TestAListThatFillsItsRoomExactlyIsAskedForAgain: a list just as long
// as the room cannot be told from one cut short.
func TestAListThatFillsItsRoomExactlyIsAskedForAgain(t *testing.T) {
	tries := 0
	fill := descendants(10)
	got, err := listWithRoom(10, func(l []entry) error { tries++; return fill(l) }, valid)
	if err != nil || len(got) != 10 || tries != 2 {
		t.Fatalf("listWithRoom(10) of 10 = %d entries, %v after %d tries; want 10 after 2", len(got), err, tries)
	}
}

func TestAnEmptyListHasNoEntries(t *testing.T) {
	got, err := listWithRoom(0, descendants(0), valid)
	if err != nil || len(got) != 0 {
		t.Fatalf("listWithRoom(0) of none = %v, %v; want none", got, err)
	}
}

func TestAListThatNeverEndsFails(t *testing.T) {
	_, err := listWithRoom(1, descendants(1<<30), valid)
	if err == nil {
		t.Fatal("listWithRoom() of a list longer than any room = nil error, want one")
	}
}

func TestAFailedFillIsAnError(t *testing.T) {
	_, err := listWithRoom(1, func([]entry) error { return syscall.EINVAL }, valid)
	if !errors.Is(err, syscall.EINVAL) {
		t.Fatalf("listWithRoom() = %v, want EINVAL", err)
	}
}
