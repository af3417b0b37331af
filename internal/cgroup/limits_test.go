package cgroup

import (
	"slices"
	"testing"
)

func TestLimitsNeedTheirControllersOnly(t *testing.T) {
	for _, c := range []struct {
		l    Limits
		want []string
	}{
		{Limits{}, nil},
		{Limits{Tasks: 3}, []string{"pids"}},
		{Limits{Memory: 1 << 20}, []string{"memory"}},
		{Limits{Swap: 1 << 20}, nil}, // swap alone is no limit
		{Limits{CPU: 0.5, Tasks: 1, Memory: 1}, []string{"cpu", "memory", "pids"}},
	} {
		if got := c.l.Controllers(); !slices.Equal(got, c.want) {
			t.Errorf("%+v.Controllers() = %v, want %v", c.l, got, c.want)
		}
	}
}

func TestLimitsWriteWhatTheKernelReadsBack(t *testing.T) {
	got := Limits{Tasks: 20, Memory: 64<<20 + 100, Swap: 5000, CPU: 1.5}.writes(4096)
	want := []write{
		{"pids.max", "20", "20", false},
		{"memory.max", "67108964", "67108864", false}, // whole pages
		{"memory.swap.max", "5000", "4096", false},    // asked for: must be there
		{"cpu.max", "150000 100000", "150000 100000", false},
	}
	if !slices.Equal(got, want) {
		t.Errorf("writes = %v, want %v", got, want)
	}
	if got := (Limits{Memory: 1 << 30}).writes(4096); len(got) != 2 || got[1] != (write{"memory.swap.max", "0", "0", true}) {
		t.Errorf("a memory limit without swap writes %v, want memory.swap.max 0 after memory.max, optional", got)
	}
}

func TestFlatKeyedReadsOneKeyOfACgroupFile(t *testing.T) {
	stat := []byte("usage_usec 927139\nuser_usec 900000\nsystem_usec 27139\nnr_periods 0\n")
	if n, ok := flatKeyed(stat, "usage_usec"); !ok || n != 927139 {
		t.Errorf("usage_usec = %d, %v", n, ok)
	}
	if _, ok := flatKeyed(stat, "usage"); ok {
		t.Error("a key that is only a prefix of one was found")
	}
	if _, ok := flatKeyed([]byte("max x\n"), "max"); ok {
		t.Error("a value that is not a number was read")
	}
}
