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
