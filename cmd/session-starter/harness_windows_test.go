package main

// Windows session tests. The test binary plays every role: the starter
// itself (the helper "session-starter" runs this package's main), the
// Engines, and a launcher. They run on Windows and under Wine
// (make test-windows); the few that need console control events skip
// under Wine, which does not deliver them.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/testproc"
	"github.com/session-starter/session-starter/internal/wire"
	"github.com/session-starter/session-starter/starter/launch"
)

// engineVar names the role of the Engine that the helper
// "session-starter" starts (testproc.HelperVar names the helper's own).
const engineVar = "SESSION_STARTER_E2E_ENGINE"

func TestMain(m *testing.M) {
	testproc.RunHelper()
	os.Exit(m.Run())
}

func init() {
	// The product: main itself, with the starter's arguments.
	testproc.Register("session-starter", func([]string) int {
		// The Engine inherits this environment: it plays engineVar's role.
		os.Setenv(testproc.HelperVar, os.Getenv(engineVar))
		main()
		return 0 // not reached: main exits
	})
	// leaf N: a process that starts leaf N-1 (N > 0), prints "pid P" for
	// itself after its child's line, then stays until ended.
	testproc.Register("leaf", func(args []string) int {
		n, _ := strconv.Atoi(args[0])
		if n > 0 {
			if err := startChildLeaf(n - 1); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		}
		fmt.Printf("pid %d\n", os.Getpid())
		time.Sleep(testproc.TooLong) // ended by the session long before
		return 0
	})
	// engine CODE WAIT: starts a child that starts a grandchild, prints
	// "pids ENGINE CHILD GRANDCHILD", then waits — WAIT "stdin" for a
	// line on stdin, "forever" until ended — and exits CODE.
	testproc.Register("engine", func(args []string) int {
		code, _ := strconv.Atoi(args[0])
		r, w, err := os.Pipe()
		if err != nil {
			return 101
		}
		c := exec.Command(os.Args[0])
		c.Args = []string{os.Args[0], "1"}
		c.Env = append(os.Environ(), testproc.HelperVar+"=leaf")
		c.Stdout = w
		if err := c.Start(); err != nil {
			return 102
		}
		w.Close()
		br := bufio.NewReader(r)
		grand, _ := br.ReadString('\n')
		child, _ := br.ReadString('\n')
		fmt.Printf("pids %d %s %s\n", os.Getpid(), strings.TrimPrefix(strings.TrimSpace(child), "pid "), strings.TrimPrefix(strings.TrimSpace(grand), "pid "))
		switch args[1] {
		case "stdin":
			_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		default:
			time.Sleep(testproc.TooLong) // ended by the session long before
		}
		return code
	})
	// exit CODE: exits at once with CODE (any uint32).
	testproc.Register("exit", func(args []string) int {
		code, _ := strconv.ParseUint(args[0], 10, 32)
		os.Exit(int(code))
		return 0
	})
	// exit-on-break: prints "waiting", then exits 7 with "break" on
	// CTRL_BREAK_EVENT (os.Interrupt in Go).
	testproc.Register("exit-on-break", func([]string) int {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, os.Interrupt)
		fmt.Println("waiting")
		select {
		case <-ch:
			fmt.Println("break")
			return 7
		case <-time.After(testproc.TooLong):
			return 0
		}
	})
	// cmdline: prints its command line as Windows gave it.
	testproc.Register("cmdline", func([]string) int {
		fmt.Println(windows.UTF16PtrToString(windows.GetCommandLine()))
		return 0
	})
	// print: writes one line and exits 0.
	testproc.Register("print", func([]string) int {
		fmt.Println("engine output")
		return 0
	})
	// argv: prints its arguments as a JSON array.
	testproc.Register("argv", func(args []string) int {
		b, _ := json.Marshal(args)
		fmt.Println(string(b))
		return 0
	})
	// launcher ARG...: starts session-starter with ARG..., its stdout
	// going to ours, then waits for a line on stdin and exits without
	// waiting for it.
	testproc.Register("launcher", func(args []string) int {
		c := exec.Command(os.Args[0], args...)
		c.Env = append(os.Environ(), testproc.HelperVar+"=session-starter")
		c.Stdout, c.Stderr = os.Stdout, os.Stderr
		if err := c.Start(); err != nil {
			return 103
		}
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		return 0
	})
}

func startChildLeaf(n int) error {
	c := exec.Command(os.Args[0], strconv.Itoa(n))
	c.Env = append(os.Environ(), testproc.HelperVar+"=leaf")
	c.Stdout = os.Stdout
	return c.Start()
}

// onWine reports whether the tests run under Wine, whose ntdll exports
// wine_get_version.
func onWine() bool { return sys.UnderWine() }

// testExe is the test binary's path.
func testExe(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// helperArgv is the command line of the test binary as an Engine; the
// role comes from startSession's engine argument.
func helperArgv(t *testing.T, args ...string) []string {
	t.Helper()
	return append([]string{testExe(t)}, args...)
}

// session is a session-starter process started by a test.
type session struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  *os.File // the write end of the starter's stdin
	stdout *bufio.Reader
	stderr lockedBuffer
	done   chan struct{}
}

// lockedBuffer is the starter's stderr, written by os/exec's copying
// goroutine while a test may read it.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startSession starts the starter with args; engine names the helper the
// test binary plays when the starter runs it as the Engine. extra, when
// set, adjusts the command before it starts. Stdin and stdout are pipes
// of the test's own (not os/exec's, which Wait closes): the Engine's
// output can be read after the starter exited. Under Wine a failed
// CreateProcess of the starter itself ("Internal error", seen once in
// many runs: Wine's, before any code of ours runs) is tried again, twice
// at most; on Windows it fails the test at once.
func startSession(t *testing.T, engine string, args []string, extra func(*exec.Cmd)) *session {
	t.Helper()
	for attempt := 1; ; attempt++ {
		s, err := trySession(t, engine, args, extra)
		if err == nil {
			return s
		}
		if !onWine() || attempt == 3 {
			t.Fatal(err)
		}
		t.Logf("start %d of session-starter under Wine: %v; again", attempt, err)
	}
}

// trySession is one attempt of startSession.
func trySession(t *testing.T, engine string, args []string, extra func(*exec.Cmd)) (*session, error) {
	t.Helper()
	s := &session{t: t, done: make(chan struct{})}
	s.cmd = exec.Command(testExe(t), args...)
	s.cmd.Env = append(os.Environ(), testproc.HelperVar+"=session-starter", engineVar+"="+engine)
	s.cmd.Stderr = &s.stderr
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inW.Close(); outR.Close() })
	s.cmd.Stdin, s.cmd.Stdout = inR, outW
	s.stdin, s.stdout = inW, bufio.NewReader(outR)
	if extra != nil {
		extra(s.cmd)
	}
	err = s.cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		return nil, err
	}
	go func() {
		_ = s.cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() {
		select {
		case <-s.done:
		default:
			_ = s.cmd.Process.Kill()
			<-s.done
			t.Errorf("session-starter was still running at cleanup and was killed")
		}
	})
	return s, nil
}

// line reads one line of the starter's stdout, within testproc.TooLong.
func (s *session) line() string {
	s.t.Helper()
	type result struct {
		l   string
		err error
	}
	ch := make(chan result, 1)
	go func() {
		l, err := s.stdout.ReadString('\n')
		ch <- result{l, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			s.t.Fatalf("read stdout: %q, %v; stderr: %s", r.l, r.err, s.stderr.String())
		}
		return strings.TrimRight(r.l, "\r\n")
	case <-time.After(testproc.TooLong):
		s.t.Fatalf("no line on stdout within %v", testproc.TooLong)
		return ""
	}
}

// rest reads the starter's stdout to its end of file, within testproc.TooLong:
// every process that shared it has then exited or closed it.
func (s *session) rest() string {
	s.t.Helper()
	ch := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(s.stdout)
		ch <- b
	}()
	select {
	case b := <-ch:
		return string(b)
	case <-time.After(testproc.TooLong):
		s.t.Fatalf("stdout still open %v later", testproc.TooLong)
		return ""
	}
}

// exitCode waits, within testproc.TooLong, for the starter to exit and returns its
// exit code.
func (s *session) exitCode() int {
	s.t.Helper()
	select {
	case <-s.done:
		return s.cmd.ProcessState.ExitCode()
	case <-time.After(testproc.TooLong):
		s.t.Fatalf("session-starter did not exit within %v", testproc.TooLong)
		return -1
	}
}

// ack reads the ack line and returns the Engine's PID.
func (s *session) ack() int {
	s.t.Helper()
	l := s.line()
	pid, mode, err := launch.ParseAck([]byte(l))
	if err != nil {
		s.t.Fatalf("first line %q: %v", l, err)
	}
	if mode != wire.ModeJob {
		s.t.Fatalf("ack mode = %q, want %q", mode, wire.ModeJob)
	}
	return pid
}

// tree reads the engine helper's "pids" line and opens a handle to each
// of the three processes. They are live and waiting when the line is
// read, so each handle names the process that printed its ID.
func (s *session) tree(enginePID int) []windows.Handle {
	s.t.Helper()
	f := strings.Fields(s.line())
	if len(f) != 4 || f[0] != "pids" {
		s.t.Fatalf("want a pids line, got %q", f)
	}
	if f[1] != strconv.Itoa(enginePID) {
		s.t.Fatalf("the Engine's PID is %s, the ack said %d", f[1], enginePID)
	}
	var hs []windows.Handle
	for _, p := range f[1:] {
		pid, err := strconv.Atoi(p)
		if err != nil {
			s.t.Fatalf("pids line %q: %v", f, err)
		}
		h, err := windows.OpenProcess(windows.SYNCHRONIZE|windows.PROCESS_TERMINATE|windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
		if err != nil {
			s.t.Fatalf("OpenProcess(%d): %v", pid, err)
		}
		hs = append(hs, h)
	}
	s.t.Cleanup(func() {
		for _, h := range hs {
			if ev, _ := windows.WaitForSingleObject(h, 0); ev != windows.WAIT_OBJECT_0 {
				_ = windows.TerminateProcess(h, 1)
				s.t.Errorf("a process of the session was still live at cleanup and was terminated")
			}
			_ = windows.CloseHandle(h)
		}
	})
	return hs
}

// allEnd waits, within testproc.TooLong, until every process in hs has exited.
func allEnd(t *testing.T, hs []windows.Handle) {
	t.Helper()
	ev, err := windows.WaitForMultipleObjects(hs, true, uint32(testproc.TooLong/time.Millisecond))
	if err != nil || ev == uint32(windows.WAIT_TIMEOUT) {
		t.Fatalf("the Engine's tree still runs %v later (WaitForMultipleObjects = %d, %v)", testproc.TooLong, ev, err)
	}
}
