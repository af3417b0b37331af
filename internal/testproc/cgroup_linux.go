package testproc

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// LimitCgroup makes a cgroup of the test's below this process's own, with
// the pids, memory and cpu controllers offered to it, and removes it
// (with what it holds: only the test's processes) at cleanup. It skips
// where there is no writable cgroup2 mount or the controllers are not
// offered: on a hybrid host whose cgroup v2 has none of them; the
// kernels of scripts/vm have them all.
func LimitCgroup(t testing.TB) string {
	t.Helper()
	own, err := ownCgroup()
	if err != nil {
		t.Skip(err)
	}
	b, err := os.ReadFile(path.Join(own, "cgroup.subtree_control"))
	if err != nil {
		t.Skipf("no cgroup.subtree_control in %s: %v", own, err)
	}
	for _, c := range []string{"pids", "memory", "cpu"} {
		if !slices.Contains(strings.Fields(string(b)), c) {
			t.Skipf("the %s controller is not offered to the cgroups below %s (its subtree_control %q): "+
				"the kernels of scripts/vm show the limits", c, own, strings.TrimSpace(string(b)))
		}
	}
	dir := path.Join(own, fmt.Sprintf("limtest-%d-%d", os.Getpid(), rand.Uint32()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { RemoveCgroup(t, dir) })
	return dir
}

// ownCgroup is the directory of this process's cgroup v2, from
// /proc/self/mountinfo and /proc/self/cgroup.
func ownCgroup() (string, error) {
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return "", err
	}
	mount := ""
	for line := range strings.SplitSeq(string(mi), "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		if f := strings.Fields(pre); ok && strings.HasPrefix(post, "cgroup2 ") && len(f) >= 5 && f[3] == "/" {
			mount = f[4]
			break
		}
	}
	cg, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	for line := range strings.SplitSeq(string(cg), "\n") {
		if own, ok := strings.CutPrefix(line, "0::"); ok && mount != "" {
			return path.Join(mount, own), nil
		}
	}
	return "", fmt.Errorf("no cgroup2 mount with this process's cgroup")
}

// RemoveCgroup kills what is in the test's cgroup dir and below it and
// removes it, the cgroups below it first.
func RemoveCgroup(t testing.TB, dir string) {
	t.Helper()
	_ = os.WriteFile(path.Join(dir, "cgroup.kill"), []byte("1"), 0)
	Eventually(t, "the test's cgroup "+dir+" empties", func() bool {
		b, err := os.ReadFile(path.Join(dir, "cgroup.events"))
		return err != nil || strings.Contains(string(b), "populated 0")
	})
	var dirs []string
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	for _, d := range slices.Backward(dirs) {
		if err := os.Remove(d); err != nil {
			t.Errorf("remove %s: %v", d, err)
		}
	}
}
