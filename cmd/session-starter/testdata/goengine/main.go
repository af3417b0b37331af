// Command goengine is a Go Engine in the requested form, for the tests in
// sdk_linux_test.go. Its init function appends a line to init.log next to
// the binary in every process that runs it — starter, gate, guard or
// Engine — so a test can count them.
//
// As the Engine it prints its argv, whether the request variable reached
// it, its PID and process group, starts a "sleep 600" of its own, and
// exits with the status given as its first argument once its input ends.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/session-starter/session-starter/starter/contain"
	"github.com/session-starter/session-starter/starter/launch"
)

func init() {
	role := "process"
	if len(os.Args) > 1 && strings.HasPrefix(os.Args[1], "__session-starter-") {
		// "__session-starter-guard__2": the mode, without the protocol.
		role, _, _ = strings.Cut(strings.TrimPrefix(os.Args[1], "__session-starter-"), "__")
	}
	exe, err := os.Executable()
	if err != nil {
		os.Exit(90)
	}
	// The guard's environment is not the Engine's, so the log's place
	// cannot come through it; O_APPEND keeps lines of concurrent writers
	// whole.
	f, err := os.OpenFile(filepath.Join(filepath.Dir(exe), "init.log"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		os.Exit(91)
	}
	fmt.Fprintf(f, "%d %s\n", os.Getpid(), role)
	f.Close()
}

func main() {
	contain.IfRequested()

	code := 0
	if len(os.Args) > 1 {
		code, _ = strconv.Atoi(os.Args[1])
	}
	v, requested := os.LookupEnv(launch.RequestEnv)
	pgid, _ := syscall.Getpgid(0)
	fmt.Printf("argv %q\n", os.Args)
	fmt.Printf("request %v %q\n", requested, v)
	fmt.Printf("pid %d pgid %d\n", os.Getpid(), pgid)
	sleep := exec.Command("sleep", "600")
	if err := sleep.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(92)
	}
	fmt.Printf("child %d\n", sleep.Process.Pid)
	_, _ = io.Copy(io.Discard, bufio.NewReader(os.Stdin))
	os.Exit(code)
}
