package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"
)

// quiet is how long nothing may be printed before a line of progress.
const quiet = 20 * time.Second

// event is one line of `go test -json` (test2json's TestEvent).
type event struct {
	Action     string
	Package    string
	ImportPath string // of build-output
	Test       string
	Output     string
	Elapsed    float64
}

// run is the state of the tests: what each package's tests said so far,
// which test each package is running, and the counts.
type run struct {
	out      io.Writer
	start    time.Time
	printed  time.Time
	held     map[string][]string // package and top-level test: its output
	running  map[string]string   // package: the top-level test it runs
	packages map[string]bool     // every package seen: ended
	passed   int
	skipped  int
	failed   []string
	badPkgs  []string
}

func main() {
	os.Exit(follow(os.Stdin, os.Stdout, quiet))
}

// follow reads `go test -json` from in and reports on out, with a line of
// progress after each quiet stretch. It returns the exit status.
func follow(in io.Reader, out io.Writer, quiet time.Duration) int {
	r := &run{out: out, start: time.Now(), held: map[string][]string{}, running: map[string]string{}, packages: map[string]bool{}}
	r.say("load average before: %s", loadAverage())
	events := make(chan event)
	go func() {
		defer close(events)
		dec := json.NewDecoder(bufio.NewReader(in))
		for {
			var e event
			if err := dec.Decode(&e); err != nil {
				if err != io.EOF {
					// Not test2json's: the rest is passed on as it is.
					rest, _ := io.ReadAll(io.MultiReader(dec.Buffered(), in))
					events <- event{Action: unparsed, Output: string(rest)}
				}
				return
			}
			events <- e
		}
	}()
	tick := time.NewTicker(quiet / 20)
	defer tick.Stop()
	for {
		select {
		case e, ok := <-events:
			if !ok {
				return r.finish()
			}
			r.take(e)
		case now := <-tick.C:
			if now.Sub(r.printed) >= quiet {
				r.progress(now)
			}
		}
	}
}

// say prints one line and notes when.
func (r *run) say(format string, args ...any) {
	fmt.Fprintf(r.out, format+"\n", args...)
	r.printed = time.Now()
}

// write prints output as it came.
func (r *run) write(lines ...string) {
	for _, l := range lines {
		_, _ = io.WriteString(r.out, l)
	}
	r.printed = time.Now()
}

// unparsed is the action of what follows input that is not test2json's.
const unparsed = "unparsed"

// take reads one event.
func (r *run) take(e event) {
	switch e.Action {
	case "build-output":
		r.write(e.Output)
		return
	case unparsed:
		r.write(e.Output)
		r.failed = append(r.failed, "(output that is not go test -json)")
		return
	}
	if e.Package == "" {
		return
	}
	if _, ok := r.packages[e.Package]; !ok {
		r.packages[e.Package] = false
	}
	if e.Test == "" {
		r.takePackage(e)
		return
	}
	top, _, sub := strings.Cut(e.Test, "/")
	key := e.Package + " " + top
	switch e.Action {
	case "run":
		if !sub {
			r.running[e.Package] = top
		}
	case "output":
		r.held[key] = append(r.held[key], e.Output)
	case "pass", "skip", "fail":
		if sub {
			return
		}
		switch e.Action {
		case "pass":
			r.passed++
		case "skip":
			r.skipped++
		case "fail":
			r.failed = append(r.failed, e.Package+"."+top)
			r.write(r.held[key]...)
		}
		delete(r.held, key)
		if r.running[e.Package] == top {
			delete(r.running, e.Package)
		}
	}
}

// takePackage reads an event of the package as a whole: its result lines
// are printed; a failed package also prints what its tests said that was
// not printed yet (a panic, a timeout's stacks).
func (r *run) takePackage(e event) {
	switch e.Action {
	case "output":
		if l := strings.TrimSpace(e.Output); l != "PASS" && l != "FAIL" && !strings.HasPrefix(l, "=== ") {
			r.write(e.Output)
		}
	case "pass", "skip", "fail":
		r.packages[e.Package] = true
		delete(r.running, e.Package)
		if e.Action == "fail" {
			r.badPkgs = append(r.badPkgs, e.Package)
		}
		prefix := e.Package + " "
		for _, key := range slices.Sorted(maps.Keys(r.held)) {
			if strings.HasPrefix(key, prefix) {
				if e.Action == "fail" {
					r.write(r.held[key]...)
				}
				delete(r.held, key)
			}
		}
	}
}

// progress says how far the tests are, and what runs.
func (r *run) progress(now time.Time) {
	done := 0
	for _, ended := range r.packages {
		if ended {
			done++
		}
	}
	var running []string
	for _, pkg := range slices.Sorted(maps.Keys(r.running)) {
		running = append(running, short(pkg)+": "+r.running[pkg])
	}
	line := fmt.Sprintf("… %s: %d of %d packages done, %d tests passed", now.Sub(r.start).Round(time.Second), done, len(r.packages), r.passed)
	if len(running) > 0 {
		line += "; running " + strings.Join(running, ", ")
	}
	r.say("%s", line)
}

// finish prints the summary and returns the exit status.
func (r *run) finish() int {
	r.say("%d packages, %d tests passed, %d skipped, %d failed in %s", len(r.packages), r.passed, r.skipped, len(r.failed), time.Since(r.start).Round(time.Second))
	r.say("load average after: %s", loadAverage())
	if len(r.failed) > 0 {
		r.say("failed: %s", strings.Join(r.failed, " "))
	}
	if len(r.packages) == 0 {
		r.say("no package was tested")
		return 1
	}
	if len(r.badPkgs) > 0 || len(r.failed) > 0 {
		return 1
	}
	return 0
}

// short is a package path without the module's.
func short(pkg string) string {
	_, rest, found := strings.Cut(pkg, "session-starter/session-starter/")
	if !found {
		return pkg
	}
	return rest
}

// loadAverage is /proc/loadavg's first three figures, or "unknown".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}
