package testproc

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"
)

// goroutineWait bounds how long [CheckGoroutinesEnded] waits for goroutines
// to end. A goroutine a test has let go (an exec copier after Wait, a
// timer's function) ends within milliseconds; ten seconds covers two
// busy cores running the race detector. Only a run that does leak waits
// that long, and then fails.
const goroutineWait = 10 * time.Second

// CheckGoroutinesEnded returns the exit code for TestMain to exit with,
// given the code of m.Run: code, or 1 when the tests passed but left
// goroutines running, whose stacks it prints. A failed run is not
// checked: its goroutines may be left by the failure.
//
// A goroutine left is any but the caller's, the test runner's (package
// testing and the test binary's main) and the runtime's (package runtime
// and below, and the one os/signal starts for signal.Notify, which runs
// for the rest of the process). Goroutines take a moment to exit, so
// while there are any it looks again, with a growing pause, for up to
// ten seconds, and reports those of its last look.
func CheckGoroutinesEnded(code int) int {
	if code != 0 {
		return code
	}
	left := awaitNoGoroutine(goroutineWait, leakedNow)
	if len(left) == 0 {
		return code
	}
	fmt.Fprintf(os.Stderr, "testproc: goroutines left running after the tests: %d\n\n%s\n", len(left), strings.Join(left, "\n\n"))
	return 1
}

// awaitNoGoroutine calls look until it returns nothing or wait has
// passed, and returns its last result.
func awaitNoGoroutine(wait time.Duration, look func() []string) []string {
	var left []string
	poll(wait, func() bool {
		left = look()
		return len(left) == 0
	})
	return left
}

// leakedNow returns the goroutines [CheckGoroutinesEnded] reports, as
// they are now.
func leakedNow() []string {
	buf := make([]byte, 64<<10)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return leakedIn(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}

// leakedIn parses dump, the output of runtime.Stack(buf, true), whose
// first goroutine is the caller's, and returns the other goroutines that
// are neither the test runner's nor the runtime's, each as dumped.
func leakedIn(dump []byte) []string {
	var out []string
	for i, block := range bytes.Split(bytes.TrimSpace(dump), []byte("\n\n")) {
		if i == 0 || !bytes.HasPrefix(block, []byte("goroutine ")) {
			continue // the caller's, or not a goroutine
		}
		if !ignored(block) {
			out = append(out, string(block))
		}
	}
	return out
}

// ignored reports whether the goroutine dumped in block is the test
// runner's or the runtime's.
func ignored(block []byte) bool {
	var funcs []string // the goroutine's frames, innermost first
	var creator string
	for _, line := range strings.Split(string(block), "\n")[1:] {
		switch {
		case strings.HasPrefix(line, "\t"), strings.HasPrefix(line, "..."):
			// A frame's file and line, or "...N frames elided...": the
			// outermost frames follow.
		case strings.HasPrefix(line, "created by "):
			creator, _, _ = strings.Cut(strings.TrimPrefix(line, "created by "), " in goroutine ")
		default:
			// "pkg.F(args)" or "pkg.(*T).M(args)": the arguments
			// start at the last '('.
			if i := strings.LastIndexByte(line, '('); i > 0 {
				line = line[:i]
			}
			if line != "runtime.goexit" {
				funcs = append(funcs, line)
			}
		}
	}
	// signal.Notify's watcher, which never ends.
	if slices.Contains(funcs, "os/signal.signal_recv") || slices.Contains(funcs, "os/signal.loop") {
		return true
	}
	// Where the goroutine started: its outermost frame, or, with no
	// frame shown, the function that created it.
	entry := creator
	if len(funcs) > 0 {
		entry = funcs[len(funcs)-1]
	}
	return entry == "main.main" || // the test binary's main runs m.Run
		strings.HasPrefix(entry, "testing.") ||
		strings.HasPrefix(entry, "runtime.") || strings.HasPrefix(entry, "runtime/")
}
