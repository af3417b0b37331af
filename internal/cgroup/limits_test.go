package cgroup

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/session-starter/session-starter/starter/launch"
)

func TestLimitsNeedTheirControllersOnly(t *testing.T) {
	for _, c := range []struct {
		l    launch.Limits
		want []string
	}{
		{launch.Limits{}, nil},
		{launch.Limits{MaxTasks: 3}, []string{"pids"}},
		{launch.Limits{MaxMemory: 1 << 20}, []string{"memory"}},
		{launch.Limits{MaxSwap: 1 << 20}, nil}, // swap alone is no limit
		{launch.Limits{MaxCPU: 0.5, MaxTasks: 1, MaxMemory: 1}, []string{"cpu", "memory", "pids"}},
	} {
		if got := Controllers(c.l); !slices.Equal(got, c.want) {
			t.Errorf("Controllers(%+v) = %v, want %v", c.l, got, c.want)
		}
	}
}

func TestLimitsWriteWhatTheKernelReadsBack(t *testing.T) {
	got := writes(launch.Limits{MaxTasks: 20, MaxMemory: 64<<20 + 100, MaxSwap: 5000, MaxCPU: 1.5}, 4096)
	want := []write{
		{"pids.max", "20", "20", false},
		{"memory.max", "67108964", "67108864", false}, // whole pages
		{"memory.swap.max", "5000", "4096", false},    // asked for: must be there
		{"cpu.max", "150000 100000", "150000 100000", false},
	}
	if !slices.Equal(got, want) {
		t.Errorf("writes = %v, want %v", got, want)
	}
	if got := writes(launch.Limits{MaxMemory: 1 << 30}, 4096); len(got) != 2 || got[1] != (write{"memory.swap.max", "0", "0", true}) {
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

// TestACgroupsCountersAreEachFigureWithItsFileAsSource: each counter a
// cgroup has is a figure, with its file as source where the record has
// one; cpu.stat's usage_usec is milliseconds, and the OOM kills are left
// out of the JSON.
func TestACgroupsCountersAreEachFigureWithItsFileAsSource(t *testing.T) {
	counters := map[string]int64{"cpu.stat usage_usec": 1500, "memory.peak ": 4096, "pids.peak ": 3, "memory.events oom_kill": 2, "pids.events max": 0}
	u := usageFrom(func(file, key string) *int64 {
		if n, ok := counters[file+" "+key]; ok {
			return &n
		}
		return nil
	})
	b, err := json.Marshal(u)
	want := `{"cpu_ms":1.5,"cpu_source":"cpu.stat","memory_peak_bytes":4096,"memory_peak_source":"memory.peak","tasks_peak":3,"tasks_peak_source":"pids.peak","forks_refused":0}`
	if err != nil || string(b) != want {
		t.Errorf("usage of every counter = %s, %v; want %s", b, err, want)
	}
	if u.OOMKills == nil || *u.OOMKills != 2 {
		t.Errorf("OOMKills = %v, want 2", u.OOMKills)
	}
}

// TestACounterTheCgroupLacksIsNoFigure: a cgroup without the memory and
// pids controllers tells its CPU time only; one with no counter, nothing.
func TestACounterTheCgroupLacksIsNoFigure(t *testing.T) {
	u := usageFrom(func(file, key string) *int64 {
		if file == "cpu.stat" && key == "usage_usec" {
			return new(int64(7000))
		}
		return nil
	})
	if b, _ := json.Marshal(u); string(b) != `{"cpu_ms":7,"cpu_source":"cpu.stat"}` || u.OOMKills != nil {
		t.Errorf("usage of cpu.stat only = %s (oom kills %v), want its CPU time only", b, u.OOMKills)
	}
	if u := usageFrom(func(string, string) *int64 { return nil }); u != (launch.Usage{}) {
		t.Errorf("usage of no counter = %+v, want no figure", u)
	}
}
