package main

import (
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// listenEngine is a socket-activated Engine as sd_listen_fds(3) checks
// itself: its sockets are its own only when LISTEN_PID is its PID (and
// LISTEN_PIDFDID, when set, the inode of a pidfd of itself); it then
// accepts on fd 3.
const listenEngine = `
import os, socket
own = os.environ.get("LISTEN_PID") == str(os.getpid())
fdid = os.environ.get("LISTEN_PIDFDID")
if fdid is not None:
    own = own and fdid == str(os.fstat(os.pidfd_open(os.getpid())).st_ino)
n = int(os.environ.get("LISTEN_FDS", "0"))
print("own" if own else "not own", n, flush=True)
if own and n == 1:
    s = socket.socket(fileno=3)
    c, _ = s.accept()
    c.sendall(b"hello\n")
    c.close()
`

// activated runs the Engine under session-starter as a service manager
// would start it: LISTEN_PID is set to the PID that then executes
// session-starter (a shell's $$ before its exec), with a listening socket
// on fd 3.
func activated(t *testing.T, mark, pidVar string, fdid bool) (*session, *net.TCPListener) {
	t.Helper()
	l, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	f, err := l.File()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	env := `export LISTEN_PID=` + pidVar + ` LISTEN_FDS=1; `
	if fdid {
		env += `export LISTEN_PIDFDID=12345; `
	}
	cmd := exec.Command("sh", "-c", env+`exec "$0" -- python3 -c "$1"`, binary, listenEngine)
	cmd.Env = append(os.Environ(), markVar+"="+mark)
	cmd.ExtraFiles = []*os.File{f}
	return startCmd(t, mark, cmd), l
}

// TestASocketActivatedEngineFindsItsSocketsItsOwn: LISTEN_PID (and
// LISTEN_PIDFDID) that name session-starter itself are rewritten for the
// Engine, which accepts on the socket it was passed.
func TestASocketActivatedEngineFindsItsSocketsItsOwn(t *testing.T) {
	if portable {
		t.Skip("the re-executed gate of the portable build leaves LISTEN_PID as it is (a documented limit)")
	}
	for _, fdid := range []bool{false, true} {
		name := "LISTEN_PID"
		if fdid {
			name += " and LISTEN_PIDFDID"
		}
		t.Run(name, func(t *testing.T) {
			mark := newMark(t)
			s, l := activated(t, mark, "$$", fdid)
			if got := s.line(); got != "own 1" {
				t.Fatalf("the Engine said %q, want own 1; stderr: %s", got, s.stderr)
			}
			c, err := net.Dial("tcp", l.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			b := make([]byte, 6)
			if _, err := c.Read(b); err != nil || string(b) != "hello\n" {
				t.Fatalf("read %q, %v from the Engine's socket, want hello", b, err)
			}
			wantExit(t, s.wait(), 0, s.stderr)
			noSurvivors(t, mark)
		})
	}
}

// TestALISTEN_PIDOfAnotherProcessIsLeftAsItIs: sockets meant for another
// process are not made the Engine's.
func TestALISTEN_PIDOfAnotherProcessIsLeftAsItIs(t *testing.T) {
	mark := newMark(t)
	s, _ := activated(t, mark, "1", true)
	if got := s.line(); !strings.HasPrefix(got, "not own") {
		t.Fatalf("the Engine said %q, want not own", got)
	}
	wantExit(t, s.wait(), 0, s.stderr)
	noSurvivors(t, mark)
}
