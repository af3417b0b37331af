package cgroup

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/starter/launch"
)

// enableVar, in the environment of a run of this test binary, makes
// TestEnable's child: it joins the cgroup given ("dir own controller"),
// calls Enable there for the controller, prints what it sees, then calls
// Restore and prints again.
const enableVar = "SESSION_STARTER_TEST_CGROUP_ENABLE"

func TestMain(m *testing.M) {
	if spec := os.Getenv(enableVar); spec != "" {
		enableChild(spec)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// offered skips unless the kernel offers controller c to the cgroups
// made in p (it is in p's cgroup.controllers): on a hybrid host whose
// cgroup v2 has none of the limits' controllers, the layout is shown in
// the VM (scripts/vm).
func offered(t *testing.T, p Place, c string) {
	t.Helper()
	b, err := os.ReadFile(path.Join(p.Dir, "cgroup.controllers"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(words(b), c) {
		t.Skipf("%s is not offered to %s (cgroup.controllers %q): the kernels of scripts/vm show this", c, p.Own, strings.TrimSpace(string(b)))
	}
}

// cgroupOf reads the 0:: line of /proc/self/cgroup.
func cgroupOf() string {
	b, _ := os.ReadFile("/proc/self/cgroup")
	p, _ := parseProcCgroup(b)
	return p
}

func enableChild(spec string) {
	f := strings.Fields(spec)
	dir, own, ctl := f[0], f[1], f[2]
	if err := os.WriteFile(path.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(os.Getpid())), 0); err != nil {
		fmt.Println("join:", err)
		return
	}
	p, err := Locate()
	if err != nil {
		fmt.Println("locate:", err)
		return
	}
	p.Own, p.Dir = own, dir
	sup, err := Enable(p, []string{ctl}, true)
	if err != nil {
		fmt.Println("enable:", err)
		fmt.Println("cgroup:", cgroupOf())
		return
	}
	sub, _ := os.ReadFile(path.Join(dir, "cgroup.subtree_control"))
	fmt.Printf("cgroup: %s\nsubtree: %s\n", cgroupOf(), strings.TrimSpace(string(sub)))
	if sup == nil {
		fmt.Println("supervisor: none")
		return
	}
	fmt.Println("supervisor:", sup.Path)
	if _, err := Enable(p, []string{ctl}, true); err != nil {
		fmt.Println("again:", err)
	} else {
		fmt.Println("again: ok")
	}
	// Its leaf holds only this process: a session made there would move
	// it again, which one move at a time refuses.
	leaf := Place{Mount: p.Mount, Own: sup.Path, Dir: path.Join(dir, path.Base(sup.Path))}
	if _, err := os.ReadFile(path.Join(leaf.Dir, "cgroup.controllers")); err == nil {
		if _, err := Enable(leaf, []string{ctl}, true); err != nil {
			fmt.Println("second move:", strings.ReplaceAll(err.Error(), "\n", " "))
		} else {
			fmt.Println("second move: ok")
		}
	}
	if err := sup.Restore(); err != nil {
		fmt.Println("restore:", err)
	}
	sub, _ = os.ReadFile(path.Join(dir, "cgroup.subtree_control"))
	_, err = os.Stat(path.Join(dir, path.Base(sup.Path)))
	fmt.Printf("restored: %s\nsubtree after: %s\nleaf gone: %v\n", cgroupOf(), strings.TrimSpace(string(sub)), errors.Is(err, os.ErrNotExist))
}

// runEnableChild runs enableChild in p for ctl and returns its lines by
// their "key: " prefix.
func runEnableChild(t *testing.T, p Place, ctl string) map[string]string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %s %s", enableVar, p.Dir, p.Own, ctl), "GORACE=atexit_sleep_ms=0")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v; stdout: %s; stderr: %s", err, out, stderr.String())
	}
	t.Logf("child:\n%s", out)
	got := map[string]string{}
	for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		k, v, _ := strings.Cut(line, ": ")
		got[k] = v
	}
	return got
}

func TestEnableMovesALoneProcessIntoASupervisorLeafAndRestoreMovesItBack(t *testing.T) {
	p := testPlace(t)
	const ctl = "memory" // a domain controller: the rule applies
	offered(t, p, ctl)
	got := runEnableChild(t, p, ctl)
	if e, ok := got["enable"]; ok {
		t.Fatalf("Enable in a cgroup that holds only the caller: %s", e)
	}
	sup := got["supervisor"]
	if !strings.HasPrefix(sup, p.Own+"/"+Prefix) || !strings.HasSuffix(sup, SupervisorSuffix) {
		t.Errorf("supervisor leaf %q, want %s/%s….supervisor", sup, p.Own, Prefix)
	}
	if got["cgroup"] != sup {
		t.Errorf("the caller is in %q after Enable, want its leaf %q", got["cgroup"], sup)
	}
	if !slices.Contains(strings.Fields(got["subtree"]), ctl) {
		t.Errorf("cgroup.subtree_control %q after Enable, want %s in it", got["subtree"], ctl)
	}
	if !strings.Contains(got["second move"], "moved itself into a supervisor cgroup for another session already") {
		t.Errorf("a second move from the leaf: %q, want it refused (one move at a time)", got["second move"])
	}
	if got["again"] != "ok" {
		t.Errorf("a second Enable, the controller on already: %s, want no error", got["again"])
	}
	if got["restore"] != "" {
		t.Errorf("Restore: %s", got["restore"])
	}
	if got["restored"] != p.Own || slices.Contains(strings.Fields(got["subtree after"]), ctl) || got["leaf gone"] != "true" {
		t.Errorf("after Restore: in %q, subtree_control %q, leaf gone %s; want back in %s, %s off, the leaf removed",
			got["restored"], got["subtree after"], got["leaf gone"], p.Own, ctl)
	}
}

// TestEnableMovesTheCallerForAThreadedControllerToo: pids and cpu, which
// the kernel would enable beside the caller, would make its cgroup the
// root of a threaded subtree whose new children hold no process: the
// caller moves out first for them as for memory.
func TestEnableMovesTheCallerForAThreadedControllerToo(t *testing.T) {
	for _, ctl := range []string{"pids", "cpu"} {
		t.Run(ctl, func(t *testing.T) {
			p := testPlace(t)
			offered(t, p, ctl)
			got := runEnableChild(t, p, ctl)
			if e, ok := got["enable"]; ok {
				t.Fatalf("Enable(%s): %s", ctl, e)
			}
			if !strings.HasSuffix(got["supervisor"], SupervisorSuffix) || got["cgroup"] != got["supervisor"] {
				t.Errorf("Enable(%s): supervisor %q, the caller in %q; want it moved into its leaf", ctl, got["supervisor"], got["cgroup"])
			}
			if typ, _ := os.ReadFile(path.Join(p.Dir, "cgroup.type")); strings.TrimSpace(string(typ)) != "domain" {
				t.Errorf("%s is %q after Enable(%s), want still a domain", p.Own, typ, ctl)
			}
		})
	}
}

func TestEnableRefusesACgroupThatHoldsAnotherProcessNamingIt(t *testing.T) {
	p := testPlace(t)
	const ctl = "pids"
	offered(t, p, ctl)
	other := sleeper(t, p.Dir, false)
	got := runEnableChild(t, p, ctl)
	e := got["enable"]
	if !strings.Contains(e, ErrShared.Error()) || !strings.Contains(e, fmt.Sprintf("%d (sleep)", other.Process.Pid)) {
		t.Fatalf("Enable beside a sleep: %q, want %q naming %d (sleep)", e, ErrShared, other.Process.Pid)
	}
	if got["cgroup"] != p.Own {
		t.Errorf("the caller is in %q after the refusal, want it left in %s", got["cgroup"], p.Own)
	}
	entries, _ := os.ReadDir(p.Dir)
	for _, en := range entries {
		if strings.HasSuffix(en.Name(), SupervisorSuffix) {
			t.Errorf("supervisor leaf %s left after the refusal", en.Name())
		}
	}
}

func TestEnableRefusesAControllerTheCgroupIsNotOffered(t *testing.T) {
	p := testPlace(t)
	// A cgroup below one that enabled nothing for its children is
	// offered no controller at all.
	if err := os.Mkdir(path.Join(p.Dir, "bare"), 0o755); err != nil {
		t.Fatal(err)
	}
	bare := Place{Mount: p.Mount, Own: path.Join(p.Own, "bare"), Dir: path.Join(p.Dir, "bare")}
	_, err := Enable(bare, []string{"pids"}, false)
	want := ErrNotDelegated
	if own, _ := os.ReadFile("/proc/self/cgroup"); len(onV1(own, []string{"pids"})) > 0 {
		// A hybrid host: no cgroup v2 can offer it.
		want = ErrOnV1
	}
	if !errors.Is(err, want) || !strings.Contains(err.Error(), "pids") {
		t.Fatalf("Enable(pids) where it is not offered: %v, want %v naming pids", err, want)
	}
}

func TestSetLimitsWritesEachLimitAndReadsItBack(t *testing.T) {
	p := testPlace(t)
	for _, c := range []string{"pids", "memory", "cpu"} {
		offered(t, p, c)
	}
	if sup, err := Enable(p, []string{"cpu", "memory", "pids"}, false); err != nil || sup != nil {
		t.Fatalf("Enable in a cgroup with no process: %v, %v; want nil, nil", sup, err)
	}
	s, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	defer func() { _ = s.Remove() }()
	page := int64(os.Getpagesize())
	l := launch.Limits{MaxTasks: 20, MaxMemory: 64<<20 + 1, MaxSwap: 0, MaxCPU: 0.5}
	if err := s.SetLimits(l); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{
		"pids.max":   "20",
		"memory.max": strconv.FormatInt((64<<20+1)/page*page, 10),
		"cpu.max":    "50000 100000",
	} {
		got, err := os.ReadFile(path.Join(s.Dir, file))
		if err != nil || strings.TrimSpace(string(got)) != want {
			t.Errorf("%s reads %q, %v; want %q", file, got, err, want)
		}
	}
	u := UsageOf(s.DirFD)
	if b, _ := json.Marshal(u); u.CPUMS == nil || u.TasksPeak == nil && u.MemoryPeakBytes == nil {
		t.Errorf("usage of a cgroup with every controller: %s; want cpu and the peaks", b)
	}
}

func TestSetLimitsOfACgroupWithoutTheControllerNamesTheFile(t *testing.T) {
	p := testPlace(t)
	s, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	defer func() { _ = s.Remove() }()
	// testPlace's cgroup enables nothing for its children.
	err = s.SetLimits(launch.Limits{MaxTasks: 5})
	if err == nil || !strings.Contains(err.Error(), "pids.max") {
		t.Fatalf("SetLimits(Tasks) without the pids controller: %v, want an error naming pids.max", err)
	}
}

// TestCleanLeftoversRemovesTheEmptyLeafOfADeadStarter: a supervisor leaf
// whose name's PID and start time are no live process's, and which holds
// nothing, is removed; a live starter's is left.
func TestCleanLeftoversRemovesTheEmptyLeafOfADeadStarter(t *testing.T) {
	p := testPlace(t)
	st, err := proc.ReadStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	dead := Name(os.Getpid(), st.StartTime+1, 1) + SupervisorSuffix // this PID, another start: gone
	live := Name(os.Getpid(), st.StartTime, 1) + SupervisorSuffix
	for _, n := range []string{dead, live} {
		if err := os.Mkdir(path.Join(p.Dir, n), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	removed, err := CleanLeftovers(p)
	if err != nil || !slices.Equal(removed, []string{dead}) {
		t.Fatalf("CleanLeftovers = %v, %v; want only the dead starter's leaf %s", removed, err, dead)
	}
	if _, err := os.Stat(path.Join(p.Dir, live)); err != nil {
		t.Errorf("the live starter's leaf: %v, want it left", err)
	}
}
