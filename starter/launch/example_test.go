//go:build linux

package launch_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/session-starter/session-starter/starter/launch"
)

// An Engine that answers one line on stdin and exits 3, launched under the
// session-starter found in PATH.
func ExampleStart() {
	s, err := launch.Start(context.Background(), launch.Options{
		Argv:        []string{"sh", "-c", `read line; echo "got $line"; exit 3`},
		Containment: launch.ContainGroup, // the default, auto: cgroup where possible
		Stderr:      os.Stderr,
	})
	if err != nil {
		fmt.Println(err) // no session: nothing was left running
		return
	}
	fmt.Println("contained, mode", s.Mode)

	// From here stdin and stdout are the Engine's.
	fmt.Fprintln(s.Stdin, "hello")
	out, _ := io.ReadAll(s.Stdout) // to the end: the Engine's tree has closed it
	s.Stdout.Close()
	fmt.Print(string(out))

	state, err := s.Wait()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("exit status", state.ExitCode()) // the Engine's
	// Output:
	// contained, mode group
	// got hello
	// exit status 3
}

// With a control pipe, closing Session.Control ends the session: the
// Engine's whole process group is killed, and its death by SIGKILL is
// mirrored. The same happens when the launcher dies, since that closes the
// pipe too.
func ExampleStart_controlPipe() {
	s, err := launch.Start(context.Background(), launch.Options{
		Argv:        []string{"sh", "-c", `sleep 600 & echo ready; exec sleep 600`},
		ControlPipe: true,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Stdout.Close()
	line := make([]byte, len("ready\n"))
	if _, err := io.ReadFull(s.Stdout, line); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(line))

	s.Control.Close()
	state, err := s.Wait()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("ended by", state.Sys().(syscall.WaitStatus).Signal())
	// Output:
	// ready
	// ended by killed
}

// A launch that fails leaves nothing running and says why: here
// session-starter could not find the Engine and exited 127 before any ack.
func ExampleError() {
	_, err := launch.Start(context.Background(), launch.Options{
		Argv: []string{"no-such-engine"},
	})
	var le *launch.Error
	if errors.As(err, &le) && errors.Is(err, launch.ErrNoAck) {
		fmt.Println("no containment; session-starter exited", le.ExitCode())
	}
	// Output:
	// no containment; session-starter exited 127
}

// With a status pipe, the ended record says how the session ended: here
// the Engine got the stop signal of the grace (SIGINT) and exited 0, so
// the end was graceful and no SIGKILL was needed.
func ExampleReadEnded() {
	s, err := launch.Start(context.Background(), launch.Options{
		Argv:        []string{"sh", "-c", `trap 'exit 0' INT; echo ready; while :; do sleep 0.05; done`},
		Ending:      launch.Ending{Grace: 10 * time.Second, StopSignal: syscall.SIGINT},
		Containment: launch.ContainGroup,
		StatusPipe:  true,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Stdout.Close()
	defer s.Status.Close()
	line := make([]byte, len("ready\n"))
	if _, err := io.ReadFull(s.Stdout, line); err != nil {
		fmt.Println(err)
		return
	}
	if err := s.Stop(); err != nil {
		fmt.Println(err)
		return
	}
	ended, err := launch.ReadEnded(s.Status)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("reason:", ended.Reason)
	fmt.Println("exit code:", *ended.ExitCode, "graceful:", ended.Graceful)
	if _, err := s.Wait(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// reason: signal TERM
	// exit code: 0 graceful: true
}
