//go:build linux && !portable

package lineage

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/session-starter/session-starter/internal/mark"
	"github.com/session-starter/session-starter/internal/proc"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/testproc"
)

// linuxTable is a table of FreeBSD's kind read from /proc — processes
// named by PID and start time, parents seen while the listing shows them
// — with pidfds as the handles: the sweep over real processes and real
// signals on this machine.
func linuxTable(id *mark.ID) Table {
	read := func(pid int) (Proc, error) {
		st, err := proc.ReadStat(pid)
		if err != nil {
			return Proc{}, err
		}
		return Proc{ID: Identity{PID: pid, Start: st.StartTime}, UID: proc.UID(pid), Stat: st}, nil
	}
	return Table{
		Snapshot: func() ([]Proc, error) {
			pids, err := proc.PIDs()
			if err != nil {
				return nil, err
			}
			var out []Proc
			for _, pid := range pids {
				p, err := read(pid)
				if err != nil {
					continue
				}
				if id != nil {
					p.Marked = markedByStart(pid, p.ID.Start, *id)
				}
				out = append(out, p)
			}
			return byPID(out), nil
		},
		Open: func(pid int) (Handle, Proc, error) {
			fd, err := sys.PidfdOpen(pid)
			if err != nil {
				return nil, Proc{}, err
			}
			p, err := read(pid)
			if errors.Is(err, os.ErrNotExist) {
				err = sys.ErrGone
			}
			if err != nil {
				sys.Close(fd)
				return nil, Proc{}, err
			}
			return pidfd(fd), p, nil
		},
	}
}

type pidfd int

func (fd pidfd) Signal(sig syscall.Signal) error { return sys.PidfdSignal(int(fd), sig) }
func (fd pidfd) Close()                          { sys.Close(int(fd)) }

// TestARealSetsidEscapeeIsFoundAndEndedAfterItsParentExited: a shell (the
// Engine here) starts `setsid sleep` and exits; the sleep, adopted by
// another process, is found by the passes taken while the shell lived and
// ended by SIGKILL through a pidfd; a sleep of the same user that the test
// started beside it is untouched.
func TestARealSetsidEscapeeIsFoundAndEndedAfterItsParentExited(t *testing.T) {
	stranger := exec.Command("/bin/sleep", "300")
	if err := stranger.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = stranger.Process.Kill()
		_ = stranger.Wait()
	})
	engine := exec.Command("/bin/sh", "-c", "setsid /bin/sleep 300 & echo $!; read x || :")
	in, err := engine.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := engine.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := engine.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		_ = engine.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	escapee, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	// A pidfd of the escapee while it is the shell's child (so the number
	// is its own): the test's cleanup and its check of the end.
	fd, err := sys.PidfdOpen(escapee)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = sys.PidfdSignal(fd, syscall.SIGKILL)
		sys.Close(fd)
	})
	testproc.Eventually(t, "the escapee a sleep in a session of its own", func() bool {
		st, err := proc.ReadStat(escapee)
		return err == nil && st.PPID == engine.Process.Pid && st.Session == escapee && st.Comm == "sleep"
	})
	root, err := proc.ReadStat(engine.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	s := NewSweep(Identity{PID: root.PID, Start: root.StartTime}, os.Getuid(), linuxTable(nil))
	in.Close()
	if err := engine.Wait(); err != nil {
		t.Fatal(err)
	}
	if err := s.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("Signal(SIGKILL) = %v", err)
	}
	testproc.Eventually(t, "the escapee ended", func() bool {
		st, err := proc.ReadStat(escapee)
		return err != nil || !st.Live() || sys.PidfdSignal(fd, 0) != nil
	})
	if err := stranger.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the stranger: %v", err)
	}
	if st, err := proc.ReadStat(stranger.Process.Pid); err != nil || st.State == 'Z' || st.State == 'T' {
		t.Fatalf("the stranger %+v, %v; want it running, untouched", st, err)
	}
}
