package proc

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
)

// benchGroup starts a shell that leads a new process group with n sleeping
// children and returns the group number once every child is forked. The
// shell stays our unreaped child until cleanup, so the number stays
// pinned; cleanup kills the group and reaps the shell.
func benchGroup(b *testing.B, n int) int {
	b.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	script := `i=0; while [ "$i" -lt "$1" ]; do sleep 600 & i=$((i+1)); done; echo ready; exec sleep 600`
	cmd := exec.Command("/bin/sh", "-c", script, "sh", strconv.Itoa(n))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdout = w
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	w.Close()
	pgid := cmd.Process.Pid
	b.Cleanup(func() {
		// SAFETY: pgid is our unreaped child and leads its own group.
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	if line, err := bufio.NewReader(r).ReadString('\n'); err != nil || line != "ready\n" {
		b.Fatalf("group of %d: read %q, %v; want ready", n, line, err)
	}
	return pgid
}

// BenchmarkLiveMembers times one /proc scan for the live members of a
// group with extra sleeping members: every PID on the machine is asked
// its group (getpgid), and each member's stat is read.
func BenchmarkLiveMembers(b *testing.B) {
	for _, extra := range []int{0, 100, 1000} {
		b.Run(fmt.Sprintf("extra=%d", extra), func(b *testing.B) {
			pgid := benchGroup(b, extra)
			all, err := PIDs()
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				got, err := LiveMembers(pgid)
				if err != nil {
					b.Fatal(err)
				}
				if len(got) < 1 {
					b.Fatalf("LiveMembers(%d) found %d members", pgid, len(got))
				}
			}
			b.ReportMetric(float64(len(all)), "pids")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(all)), "ns/pid")
		})
	}
}

// BenchmarkReadStat times the read and parse of one /proc/PID/stat, the
// unit of a scan.
func BenchmarkReadStat(b *testing.B) {
	pid := os.Getpid()
	for b.Loop() {
		if _, err := ReadStat(pid); err != nil {
			b.Fatal(err)
		}
	}
}
