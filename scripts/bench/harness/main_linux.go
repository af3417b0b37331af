package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// trialTimeout bounds one trial: a session ends in milliseconds, and a
// group of 10,000 in a few seconds; a hang is cleaned up and reported.
const trialTimeout = 60 * time.Second

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: harness startup|react|end|storm|idle|many|calls [flags]")
		os.Exit(2)
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fatal("prctl subreaper: %v", err)
	}
	var err error
	switch os.Args[1] {
	case "startup":
		err = startup(os.Args[2:])
	case "react":
		err = react(os.Args[2:])
	case "end":
		err = endGroup(os.Args[2:])
	case "storm":
		err = storm(os.Args[2:])
	case "idle":
		err = idle(os.Args[2:])
	case "many":
		err = many(os.Args[2:])
	case "firstkill":
		err = firstKill(os.Args[2:])
	case "calls":
		err = calls(os.Args[2:])
	default:
		err = fmt.Errorf("unknown mode %q", os.Args[1])
	}
	reapAll(5 * time.Second)
	if err != nil {
		fatal("%s: %v", os.Args[1], err)
	}
}

func fatal(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "harness: "+format+"\n", args...)
	os.Exit(1)
}

// emit prints one result line.
func emit(row, label string, d []time.Duration, note string) {
	med, p99 := stats(d)
	fmt.Printf("%s\t%s\t%d\t%s\t%s\t%s\n", row, label, len(d), ms(med), ms(p99), note)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3f", float64(d)/1e6) }

// stats returns the median and the 99th percentile (nearest rank).
func stats(d []time.Duration) (med, p99 time.Duration) {
	if len(d) == 0 {
		return 0, 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	if len(s)%2 == 1 {
		med = s[len(s)/2]
	} else {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	rank := int(math.Ceil(0.99*float64(len(s)))) - 1
	return med, s[max(rank, 0)]
}

// proc is a process the harness started.
type proc struct {
	pid, pidfd int
}

// spawn starts argv with files as its descriptors 0, 1, 2, ...
func spawn(argv []string, files []uintptr, setpgid bool) (proc, error) {
	pidfd := -1
	pid, err := syscall.ForkExec(argv[0], argv, &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: files,
		Sys:   &syscall.SysProcAttr{Setpgid: setpgid, PidFD: &pidfd},
	})
	if err != nil {
		return proc{}, fmt.Errorf("start %s: %w", argv[0], err)
	}
	return proc{pid: pid, pidfd: pidfd}, nil
}

// exited waits up to d for p to exit, without reaping it.
func (p proc) exited(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		left := max(time.Until(deadline), 0)
		fds := []unix.PollFd{{Fd: int32(p.pidfd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(left/time.Millisecond))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		return err == nil && n > 0
	}
}

// reap collects p's status and closes its pidfd.
func (p proc) reap() {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PIDFD, p.pidfd, &info, unix.WEXITED, nil)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	unix.Close(p.pidfd)
}

// reapAll reaps every child (the subreaper's orphans included) until none
// is left or d has passed.
func reapAll(d time.Duration) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		switch {
		case errors.Is(err, unix.ECHILD):
			return
		case errors.Is(err, unix.EINTR):
		case err != nil:
			return
		case pid == 0:
			time.Sleep(time.Millisecond)
		}
	}
	fmt.Fprintln(os.Stderr, "harness: children still running after", d)
}

// pgrpOf reads the process group of pid from /proc/PID/stat.
func pgrpOf(pid int) (int, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, errors.New("bad stat")
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 3 {
		return 0, errors.New("bad stat")
	}
	return strconv.Atoi(f[2])
}

// members opens a pidfd of every PID the tree printed and keeps those still
// in group pgid after the open: the pidfd then names that process, not a
// reused number.
func members(pids []int, pgid int) ([]int, error) {
	fds := make([]int, 0, len(pids))
	for _, pid := range pids {
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			closeAll(fds)
			return nil, fmt.Errorf("pidfd_open %d: %w", pid, err)
		}
		if g, err := pgrpOf(pid); err != nil || g != pgid {
			unix.Close(fd)
			closeAll(fds)
			return nil, fmt.Errorf("pid %d is not in group %d", pid, pgid)
		}
		fds = append(fds, fd)
	}
	return fds, nil
}

func closeAll(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}

// watcher tells when each of a set of pidfds becomes readable (the
// process exited).
type watcher struct {
	ep    int
	left  int
	first time.Time // first exit among the pidfds marked counted
	last  time.Time
}

func newWatcher(fds []int, counted func(i int) bool) (*watcher, error) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	for i, fd := range fds {
		tag := int32(0)
		if counted(i) {
			tag = 1
		}
		ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLONESHOT, Fd: int32(fd), Pad: tag}
		if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
			unix.Close(ep)
			return nil, err
		}
	}
	return &watcher{ep: ep, left: len(fds)}, nil
}

// wait returns once every pidfd was readable, or false at the deadline.
func (w *watcher) wait(deadline time.Time) bool {
	evs := make([]unix.EpollEvent, 256)
	for w.left > 0 {
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		n, err := unix.EpollWait(w.ep, evs, int(left/time.Millisecond)+1)
		now := time.Now()
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return false
		}
		for _, ev := range evs[:n] {
			if ev.Pad == 1 && w.first.IsZero() {
				w.first = now
			}
		}
		w.left -= n
		if w.left == 0 {
			w.last = now
		}
	}
	return true
}

func (w *watcher) close() { unix.Close(w.ep) }

// readPids reads lines from r until one starts with "pids ".
func readPids(r *bufio.Reader) ([]int, error) {
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("read tree pids: %w", err)
		}
		if rest, ok := strings.CutPrefix(line, "pids "); ok {
			var out []int
			for _, f := range strings.Fields(rest) {
				pid, err := strconv.Atoi(f)
				if err != nil {
					return nil, err
				}
				out = append(out, pid)
			}
			return out, nil
		}
	}
}

// session is one started session-starter with a tree as its Engine.
type session struct {
	starter  proc
	launcher proc // the shell that started the starter, for -trigger parent
	ctlW     int  // write end of the control pipe, or -1
	engine   int  // pidfd of the Engine (the group leader)
	members  []int
	pgid     int
}

type sessionSpec struct {
	bin, helper string
	flags       []string // session-starter flags after --ack
	args        []string // helper arguments
	watchParent bool
	control     bool
	tree        bool // the helper prints every PID; else only the leader's
}

func startSession(sp sessionSpec) (*session, error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer outR.Close()
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		outW.Close()
		return nil, err
	}
	defer null.Close()
	s := &session{ctlW: -1}
	argv := append([]string{sp.bin, "--ack"}, sp.flags...)
	files := []uintptr{null.Fd(), outW.Fd(), 2}
	var ctlR *os.File
	if sp.control {
		var ctlW *os.File
		if ctlR, ctlW, err = os.Pipe(); err != nil {
			outW.Close()
			return nil, err
		}
		// The write end is ours alone: a raw descriptor, so that the
		// trigger is one close(2) whose time we know.
		s.ctlW, err = unix.Dup(int(ctlW.Fd()))
		ctlW.Close()
		if err != nil {
			ctlR.Close()
			outW.Close()
			return nil, err
		}
		unix.CloseOnExec(s.ctlW)
		files = append(files, ctlR.Fd())
		argv = append(argv, "--control-fd", "3")
	}
	if sp.watchParent {
		argv = append(argv, "--watch-parent")
	}
	argv = append(argv, "--", sp.helper)
	argv = append(argv, sp.args...)
	if sp.watchParent {
		// The launcher is a shell that waits for the starter (the ": "
		// keeps dash from executing it in place).
		sh := []string{"/bin/sh", "-c", `"$@"; :`, "launcher"}
		p, err := spawn(append(sh, argv...), files, false)
		if err != nil {
			outW.Close()
			return nil, err
		}
		s.launcher = p
	} else {
		p, err := spawn(argv, files, false)
		if err != nil {
			outW.Close()
			return nil, err
		}
		s.starter = p
	}
	outW.Close()
	if ctlR != nil {
		ctlR.Close()
	}
	r := bufio.NewReader(outR)
	ack, err := r.ReadString('\n')
	if err != nil {
		s.abort()
		return nil, fmt.Errorf("no ack: %w", err)
	}
	const key = `"pid":`
	i := strings.Index(ack, key)
	if !strings.HasPrefix(ack, `{"session_containment":1`) || i < 0 {
		s.abort()
		return nil, fmt.Errorf("bad ack %q", ack)
	}
	num := ack[i+len(key):]
	num = num[:strings.IndexAny(num, ",}")]
	if s.pgid, err = strconv.Atoi(num); err != nil {
		s.abort()
		return nil, fmt.Errorf("bad ack %q", ack)
	}
	pids, err := readPids(r)
	if err != nil {
		s.abort()
		return nil, err
	}
	if pids[0] != s.pgid {
		s.abort()
		return nil, fmt.Errorf("tree leader %d is not the Engine %d", pids[0], s.pgid)
	}
	if !sp.tree {
		pids = pids[:1]
	}
	if s.members, err = members(pids, s.pgid); err != nil {
		s.abort()
		return nil, err
	}
	s.engine = s.members[0]
	if sp.watchParent {
		// The starter is the launcher's child: find it for its exit.
		f := children(s.launcher.pid)
		if len(f) != 1 {
			s.abort()
			return nil, fmt.Errorf("starter of launcher %d not found", s.launcher.pid)
		}
		pid, _ := strconv.Atoi(f[0])
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			s.abort()
			return nil, err
		}
		s.starter = proc{pid: pid, pidfd: fd}
	}
	return s, nil
}

// abort ends what a failed start left: the group through the Engine's
// pidfd, the starter and launcher through theirs.
func (s *session) abort() {
	if s.engine > 0 {
		_ = unix.PidfdSendSignal(s.engine, unix.SIGKILL, nil, unix.PIDFD_SIGNAL_PROCESS_GROUP)
	}
	for _, p := range []proc{s.starter, s.launcher} {
		if p.pidfd > 0 {
			_ = unix.PidfdSendSignal(p.pidfd, unix.SIGKILL, nil, 0)
		}
	}
	s.close()
}

func (s *session) close() {
	closeAll(s.members)
	s.members, s.engine = nil, 0
	if s.ctlW >= 0 {
		unix.Close(s.ctlW)
		s.ctlW = -1
	}
	if s.launcher.pidfd > 0 {
		s.launcher.reap()
		s.launcher.pidfd = 0
		// The starter was the launcher's child: the subreaper reaps it.
		if s.starter.pidfd > 0 {
			s.starter.exited(trialTimeout)
			unix.Close(s.starter.pidfd)
			s.starter.pidfd = 0
		}
	}
	if s.starter.pidfd > 0 {
		s.starter.reap()
		s.starter.pidfd = 0
	}
	reapAll(5 * time.Second)
}

// trigger causes the end condition and returns its time. With marks set,
// it also appends "KIND NS" (CLOCK_MONOTONIC, the clock of perf record -k
// mono) to marks, for the firstkill mode.
func (s *session) trigger(kind string) (time.Time, error) {
	if marks != nil {
		var ts unix.Timespec
		_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
		fmt.Fprintf(marks, "%s %d\n", kind, ts.Nano())
	}
	t := time.Now()
	var err error
	switch kind {
	case "exit":
		err = unix.PidfdSendSignal(s.engine, unix.SIGKILL, nil, 0)
	case "parent":
		err = unix.PidfdSendSignal(s.launcher.pidfd, unix.SIGKILL, nil, 0)
	case "control":
		err = unix.Close(s.ctlW)
		s.ctlW = -1
	case "sigterm":
		err = unix.PidfdSendSignal(s.starter.pidfd, unix.SIGTERM, nil, 0)
	default:
		err = fmt.Errorf("unknown trigger %q", kind)
	}
	return t, err
}

func react(args []string) error {
	fs := flag.NewFlagSet("react", flag.ExitOnError)
	bin := fs.String("bin", "bin/session-starter", "session-starter binary")
	tree := fs.String("tree", "", "tree helper")
	size := fs.Int("size", 100, "processes in the Engine's tree")
	runs := fs.Int("n", 200, "runs")
	kind := fs.String("trigger", "exit", "exit, parent, control or sigterm")
	marksPath := fs.String("marks", "", "append each trigger's CLOCK_MONOTONIC time to this file")
	mode := fs.String("containment", "", "session-starter --containment (empty: its default)")
	_ = fs.Parse(args)
	var flags []string
	if *mode != "" {
		flags = []string{"--containment", *mode}
	}
	if *marksPath != "" {
		f, err := os.OpenFile(*marksPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		marks = f
	}
	var gone, first, exit []time.Duration
	for range *runs {
		s, err := startSession(sessionSpec{
			bin: *bin, helper: *tree, flags: flags, args: []string{strconv.Itoa(*size)},
			watchParent: *kind == "parent", control: *kind == "control", tree: true,
		})
		if err != nil {
			return err
		}
		// Only the Engine's children count for "first gone": for the
		// exit trigger the Engine is what the harness kills itself.
		w, err := newWatcher(s.members, func(i int) bool { return i > 0 })
		if err != nil {
			s.abort()
			return err
		}
		time.Sleep(2 * time.Millisecond) // let the tree settle in pause()
		t0, err := s.trigger(*kind)
		if err != nil {
			w.close()
			s.abort()
			return err
		}
		ok := w.wait(t0.Add(trialTimeout))
		w.close()
		if !ok {
			s.abort()
			return fmt.Errorf("trigger %s: tree not gone within %v", *kind, trialTimeout)
		}
		if !s.starter.exited(trialTimeout) {
			s.abort()
			return fmt.Errorf("trigger %s: starter still running", *kind)
		}
		tExit := time.Now()
		gone = append(gone, w.last.Sub(t0))
		first = append(first, w.first.Sub(t0))
		exit = append(exit, tExit.Sub(t0))
		s.close()
	}
	note := fmt.Sprintf("%d-process tree", *size)
	emit("b", *kind+": trigger → last process gone", gone, note)
	emit("b", *kind+": trigger → first process gone (≥ first kill)", first, note)
	emit("b", *kind+": trigger → session-starter exited", exit, note)
	return nil
}

// marks receives the trigger times of react, when asked for.
var marks *os.File

// firstKill reads the trigger marks of react and the output of perf script
// (-F comm,pid,time,trace over syscalls:sys_enter_pidfd_send_signal and
// syscalls:sys_enter_kill, recorded with -k mono) and reports, per
// trigger, the time to the first SIGKILL sent by session-starter or
// session-guard after it (before the next trigger).
func firstKill(args []string) error {
	fs := flag.NewFlagSet("firstkill", flag.ExitOnError)
	marksPath := fs.String("marks", "", "trigger marks written by react -marks")
	script := fs.String("perf", "", "perf script output")
	_ = fs.Parse(args)
	type mark struct {
		kind string
		ns   int64
	}
	var ms []mark
	b, err := os.ReadFile(*marksPath)
	if err != nil {
		return err
	}
	for line := range strings.SplitSeq(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		ns, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			return err
		}
		ms = append(ms, mark{f[0], ns})
	}
	var kills []int64
	if b, err = os.ReadFile(*script); err != nil {
		return err
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		f := strings.Fields(line)
		// comm pid time: pidfd: X, sig: 0x00000009, ... or kill's pid/sig.
		if len(f) < 5 || (f[0] != "session-starter" && f[0] != "session-guard") {
			continue
		}
		if !strings.Contains(line, "sig: 0x00000009") {
			continue
		}
		sec, err := strconv.ParseFloat(strings.TrimSuffix(f[2], ":"), 64)
		if err != nil {
			continue
		}
		kills = append(kills, int64(math.Round(sec*1e6))*1000)
	}
	slices.Sort(kills)
	slices.SortFunc(ms, func(a, b mark) int { return int(a.ns - b.ns) })
	by := map[string][]time.Duration{}
	var order []string
	missed := map[string]int{}
	for i, m := range ms {
		next := int64(math.MaxInt64)
		if i+1 < len(ms) {
			next = ms[i+1].ns
		}
		// perf times have microsecond resolution: allow 1 µs before.
		j, _ := slices.BinarySearch(kills, m.ns-1000)
		if _, ok := by[m.kind]; !ok && missed[m.kind] == 0 {
			order = append(order, m.kind)
		}
		if j < len(kills) && kills[j] < next {
			by[m.kind] = append(by[m.kind], time.Duration(max(kills[j]-m.ns, 0)))
		} else {
			missed[m.kind]++
		}
	}
	for _, k := range order {
		note := "perf record -k mono, syscalls:sys_enter_pidfd_send_signal/kill"
		if missed[k] > 0 {
			note += fmt.Sprintf("; %d triggers without a kill event (lost)", missed[k])
		}
		emit("b", k+": trigger → first kill syscall", by[k], note)
	}
	return nil
}

// bare starts a helper as the leader of a new group, our own child.
func bare(helper string, args []string, tree bool) (proc, []int, error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return proc{}, nil, err
	}
	defer outR.Close()
	p, err := spawn(append([]string{helper}, args...), []uintptr{0, outW.Fd(), 2}, true)
	outW.Close()
	if err != nil {
		return proc{}, nil, err
	}
	pids, err := readPids(bufio.NewReader(outR))
	if err == nil && pids[0] != p.pid {
		err = fmt.Errorf("helper printed leader %d, started %d", pids[0], p.pid)
	}
	if !tree && err == nil {
		pids = pids[:1]
	}
	var fds []int
	if err == nil {
		fds, err = members(pids, p.pid)
	}
	if err != nil {
		_ = unix.PidfdSendSignal(p.pidfd, unix.SIGKILL, nil, unix.PIDFD_SIGNAL_PROCESS_GROUP)
		p.reap()
		reapAll(5 * time.Second)
		return proc{}, nil, err
	}
	return p, fds, nil
}

// killpg is the bare baseline: kill(-E, SIGKILL). E is pinned: its leader
// is our own unreaped child.
func killpg(p proc) (time.Time, error) {
	t := time.Now()
	return t, unix.Kill(-p.pid, unix.SIGKILL)
}

func endGroup(args []string) error {
	fs := flag.NewFlagSet("end", flag.ExitOnError)
	bin := fs.String("bin", "bin/session-starter", "session-starter binary")
	tree := fs.String("tree", "", "tree helper")
	size := fs.Int("size", 1000, "processes in the group")
	runs := fs.Int("n", 20, "runs of each")
	mode := fs.String("containment", "", "session-starter --containment (empty: its default)")
	_ = fs.Parse(args)
	var flags []string
	label := "session-starter"
	if *mode != "" {
		flags = []string{"--containment", *mode}
		label += " " + *mode
	}
	var sGone, sExit, lastToExit, bGone []time.Duration
	for range *runs {
		// session-starter: SIGTERM to the starter.
		s, err := startSession(sessionSpec{bin: *bin, helper: *tree, flags: flags, args: []string{strconv.Itoa(*size)}, tree: true})
		if err != nil {
			return err
		}
		w, err := newWatcher(s.members, func(int) bool { return true })
		if err != nil {
			s.abort()
			return err
		}
		time.Sleep(20 * time.Millisecond)
		t0, _ := s.trigger("sigterm")
		ok := w.wait(t0.Add(trialTimeout))
		w.close()
		if !ok || !s.starter.exited(trialTimeout) {
			s.abort()
			return fmt.Errorf("size %d: session did not end within %v", *size, trialTimeout)
		}
		exitAt := time.Now()
		sExit = append(sExit, exitAt.Sub(t0))
		sGone = append(sGone, w.last.Sub(t0))
		// What a launcher waiting for the end sees beyond the members'
		// own exits: the starter's exit after the last of them.
		lastToExit = append(lastToExit, exitAt.Sub(w.last))
		s.close()

		// Bare killpg of the same tree.
		p, fds, err := bare(*tree, []string{strconv.Itoa(*size)}, true)
		if err != nil {
			return err
		}
		w, err = newWatcher(fds, func(int) bool { return true })
		if err != nil {
			closeAll(fds)
			return err
		}
		time.Sleep(20 * time.Millisecond)
		t0, err = killpg(p)
		ok = err == nil && w.wait(t0.Add(trialTimeout))
		w.close()
		closeAll(fds)
		if !ok {
			_ = unix.PidfdSendSignal(p.pidfd, unix.SIGKILL, nil, unix.PIDFD_SIGNAL_PROCESS_GROUP)
		}
		p.reap()
		reapAll(trialTimeout)
		if !ok {
			return fmt.Errorf("size %d: killpg did not end the group within %v", *size, trialTimeout)
		}
		bGone = append(bGone, w.last.Sub(t0))
	}
	note := fmt.Sprintf("%d sleeping processes", *size)
	emit("c", fmt.Sprintf("end %d: %s (SIGTERM) → last gone", *size, label), sGone, note)
	emit("c", fmt.Sprintf("end %d: bare killpg → last gone", *size), bGone, note)
	emit("c", fmt.Sprintf("end %d: %s (SIGTERM) → exited", *size, label), sExit, note)
	emit("c", fmt.Sprintf("end %d: %s last gone → exited", *size, label), lastToExit, note)
	return nil
}

// liveIn scans /proc for live members of pgid (the liveness rule of
// proc.Stat.Live: not Z with one thread, not X).
func liveIn(pgid int) int {
	d, err := os.Open("/proc")
	if err != nil {
		return -1
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	n := 0
	for _, name := range names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", name, "stat"))
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 18 {
			continue
		}
		g, _ := strconv.Atoi(f[2])
		threads, _ := strconv.Atoi(f[17])
		if g == pgid && f[0] != "X" && (f[0] != "Z" || threads > 1) {
			n++
		}
	}
	return n
}

// scanUntilEmpty scans /proc until group pgid has no live member.
func scanUntilEmpty(pgid int, deadline time.Time) (time.Time, bool) {
	for time.Now().Before(deadline) {
		if liveIn(pgid) == 0 {
			return time.Now(), true
		}
	}
	return time.Time{}, false
}

func storm(args []string) error {
	fs := flag.NewFlagSet("storm", flag.ExitOnError)
	bin := fs.String("bin", "bin/session-starter", "session-starter binary")
	helper := fs.String("storm", "", "storm helper")
	maxForks := fs.Int("max", 2000, "bound on the forks of one storm")
	interval := fs.Duration("interval", 20*time.Millisecond, "pause of each process between forks")
	after := fs.Duration("after", 150*time.Millisecond, "trigger this long after the storm started")
	runs := fs.Int("n", 10, "runs of each")
	_ = fs.Parse(args)
	hargs := []string{strconv.Itoa(*maxForks), strconv.FormatInt(interval.Microseconds(), 10)}
	var sEmpty, sExit, bEmpty []time.Duration
	var sLive, bLive []int
	for range *runs {
		s, err := startSession(sessionSpec{bin: *bin, helper: *helper, args: hargs})
		if err != nil {
			return err
		}
		time.Sleep(*after)
		sLive = append(sLive, liveIn(s.pgid))
		t0, _ := s.trigger("sigterm")
		tEmpty, ok := scanUntilEmpty(s.pgid, t0.Add(trialTimeout))
		if !ok || !s.starter.exited(trialTimeout) {
			s.abort()
			return errors.New("storm: session did not end")
		}
		sExit = append(sExit, time.Since(t0))
		sEmpty = append(sEmpty, tEmpty.Sub(t0))
		s.close()

		p, fds, err := bare(*helper, hargs, false)
		if err != nil {
			return err
		}
		closeAll(fds)
		time.Sleep(*after)
		bLive = append(bLive, liveIn(p.pid))
		t0, err = killpg(p)
		tEmpty, ok = scanUntilEmpty(p.pid, t0.Add(trialTimeout))
		if !ok || err != nil {
			_ = unix.PidfdSendSignal(p.pidfd, unix.SIGKILL, nil, unix.PIDFD_SIGNAL_PROCESS_GROUP)
		}
		p.reap()
		reapAll(trialTimeout)
		if !ok || err != nil {
			return errors.New("storm: killpg did not end the group")
		}
		bEmpty = append(bEmpty, tEmpty.Sub(t0))
	}
	slices.Sort(sLive)
	slices.Sort(bLive)
	note := fmt.Sprintf("≤ %d forks, %v apart per process; live at trigger: median %d (session), %d (bare); emptiness by the harness's /proc scan", *maxForks, *interval, sLive[len(sLive)/2], bLive[len(bLive)/2])
	emit("c", "fork storm: session-starter (SIGTERM) → group empty", sEmpty, note)
	emit("c", "fork storm: bare killpg → group empty", bEmpty, note)
	emit("c", "fork storm: session-starter (SIGTERM) → exited", sExit, note)
	return nil
}

// startup times whole runs of each command, round robin so that noise
// falls on all of them alike. A command is one argument, split at spaces.
func startup(args []string) error {
	fs := flag.NewFlagSet("startup", flag.ExitOnError)
	runs := fs.Int("n", 300, "runs of each command")
	warm := fs.Int("w", 20, "warm-up runs of each command")
	_ = fs.Parse(args)
	cmds := fs.Args()
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	times := make([][]time.Duration, len(cmds))
	cpu := make([][]time.Duration, len(cmds))
	for i := range *warm + *runs {
		for j, c := range cmds {
			argv := strings.Fields(c)
			if argv[0], err = exec.LookPath(argv[0]); err != nil {
				return err
			}
			t0 := time.Now()
			pid, err := syscall.ForkExec(argv[0], argv, &syscall.ProcAttr{
				Env: os.Environ(), Files: []uintptr{null.Fd(), null.Fd(), null.Fd()},
			})
			if err != nil {
				return err
			}
			var ws syscall.WaitStatus
			var ru syscall.Rusage
			for {
				_, err = syscall.Wait4(pid, &ws, 0, &ru)
				if !errors.Is(err, syscall.EINTR) {
					break
				}
			}
			d := time.Since(t0)
			if err != nil || ws.ExitStatus() != 0 {
				return fmt.Errorf("%s: %v %v", c, ws, err)
			}
			if i >= *warm {
				times[j] = append(times[j], d)
				// CPU of the command and the descendants it reaped
				// (the starter reaps the gate, the Engine and the guard):
				// less sensitive to a busy machine than wall time.
				cpu[j] = append(cpu[j], time.Duration(ru.Utime.Nano()+ru.Stime.Nano()))
			}
		}
	}
	base, _ := stats(times[0])
	for j, c := range cmds {
		med, _ := stats(times[j])
		cpuMed, _ := stats(cpu[j])
		note := "baseline"
		if j > 0 {
			note = "overhead " + ms(med-base) + " ms"
		}
		note += "; CPU (user+sys, median) " + ms(cpuMed) + " ms"
		emit("a", c, times[j], note)
	}
	return nil
}

// children lists the children of pid, forked by any of its threads.
func children(pid int) []string {
	files, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	var out []string
	for _, f := range files {
		b, _ := os.ReadFile(f)
		out = append(out, strings.Fields(string(b))...)
	}
	return out
}

// sample is what idle reads of one process.
type sample struct {
	switches int // voluntary + nonvoluntary, summed over every thread
	threads  int
	rssKiB   int
}

func readSample(pid int) (sample, error) {
	var s sample
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return s, err
	}
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/status", pid, t.Name()))
		if err != nil {
			continue
		}
		s.threads++
		s.switches += field(b, "voluntary_ctxt_switches:") + field(b, "nonvoluntary_ctxt_switches:")
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return s, err
	}
	s.rssKiB = field(b, "VmRSS:")
	return s, nil
}

func field(b []byte, key string) int {
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, key); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				n, _ := strconv.Atoi(f[0])
				return n
			}
		}
	}
	return 0
}

func idle(args []string) error {
	fs := flag.NewFlagSet("idle", flag.ExitOnError)
	bin := fs.String("bin", "bin/session-starter", "session-starter binary")
	tree := fs.String("tree", "", "tree helper")
	dur := fs.Duration("d", 10*time.Second, "idle time measured")
	_ = fs.Parse(args)
	s, err := startSession(sessionSpec{bin: *bin, helper: *tree, args: []string{"1"}})
	if err != nil {
		return err
	}
	defer s.close()
	// The guard: the starter's child whose comm is session-guard.
	guard := 0
	for _, f := range children(s.starter.pid) {
		pid, _ := strconv.Atoi(f)
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		if strings.TrimSpace(string(comm)) == "session-guard" {
			guard = pid
		}
	}
	if guard == 0 {
		s.abort()
		return errors.New("no session-guard child of the starter")
	}
	time.Sleep(time.Second) // past start-up
	procs := []struct {
		name string
		pid  int
	}{{"starter", s.starter.pid}, {"guard", guard}}
	before := make([]sample, len(procs))
	for i, p := range procs {
		if before[i], err = readSample(p.pid); err != nil {
			s.abort()
			return err
		}
	}
	time.Sleep(*dur)
	totalRSS, totalWake := 0, 0.0
	for i, p := range procs {
		after, err := readSample(p.pid)
		if err != nil {
			s.abort()
			return err
		}
		rate := float64(after.switches-before[i].switches) / dur.Seconds()
		totalRSS += after.rssKiB
		totalWake += rate
		fmt.Printf("d\tidle %v: %s\t1\t%.2f wake-ups/s\t-\tRSS %.1f MiB, %d threads\n",
			*dur, p.name, rate, float64(after.rssKiB)/1024, after.threads)
	}
	fmt.Printf("d\tidle %v: all supervisor processes\t1\t%.2f wake-ups/s\t-\tRSS %.1f MiB total\n",
		*dur, totalWake, float64(totalRSS)/1024)
	_, _ = s.trigger("sigterm")
	s.starter.exited(trialTimeout)
	return nil
}

// many starts n sessions at once, each with a one-process tree as its
// Engine, and reports: the start latency of each (spawn of the starter →
// its ack and the Engine's first line read), failures (no ack, an exit
// other than the SIGTERM death or mirror expected), and, once all are
// idle, PSS (smaps_rollup) and threads of the starter and the guard per
// session, and their wake-ups over d. Then it ends every session with
// SIGTERM and waits for each starter.
func many(args []string) error {
	fs := flag.NewFlagSet("many", flag.ExitOnError)
	bin := fs.String("bin", "bin/session-starter", "session-starter binary")
	tree := fs.String("tree", "", "tree helper")
	n := fs.Int("n", 500, "sessions at once")
	dur := fs.Duration("d", 5*time.Second, "idle time measured")
	_ = fs.Parse(args)

	type result struct {
		s   *session
		d   time.Duration
		err error
	}
	results := make([]result, *n)
	done := make(chan int, *n)
	for i := range *n {
		go func() {
			t0 := time.Now()
			s, err := startSession(sessionSpec{bin: *bin, helper: *tree, args: []string{"1"}})
			results[i] = result{s: s, d: time.Since(t0), err: err}
			done <- i
		}()
	}
	for range *n {
		<-done
	}
	var lat []time.Duration
	var live []*session
	failures := 0
	var firstErr error
	for _, r := range results {
		if r.err != nil {
			failures++
			if firstErr == nil {
				firstErr = r.err
			}
			continue
		}
		lat = append(lat, r.d)
		live = append(live, r.s)
	}
	// Each starter's guard: its child named session-guard.
	type pair struct{ starter, guard int }
	var pairs []pair
	for _, s := range live {
		g := 0
		for _, f := range children(s.starter.pid) {
			pid, _ := strconv.Atoi(f)
			comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
			if strings.TrimSpace(string(comm)) == "session-guard" {
				g = pid
			}
		}
		pairs = append(pairs, pair{s.starter.pid, g})
	}
	time.Sleep(time.Second) // past start-up
	sampleAll := func() (pssKiB, threads, switches int) {
		for _, p := range pairs {
			for _, pid := range []int{p.starter, p.guard} {
				if pid == 0 {
					continue
				}
				sm, err := readSample(pid)
				if err != nil {
					continue
				}
				threads += sm.threads
				switches += sm.switches
				b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
				pssKiB += field(b, "Pss:")
			}
		}
		return
	}
	_, _, sw0 := sampleAll()
	time.Sleep(*dur)
	pss, threads, sw1 := sampleAll()

	// The end: SIGTERM to every starter at once, then each must exit.
	for _, s := range live {
		if _, err := s.trigger("sigterm"); err != nil {
			failures++
		}
	}
	for _, s := range live {
		if !s.starter.exited(trialTimeout) {
			failures++
			_ = unix.PidfdSendSignal(s.starter.pidfd, unix.SIGKILL, nil, 0)
			s.starter.exited(trialTimeout)
		}
		// SIGTERM ends the session: the starter mirrors the Engine's end
		// (SIGKILL, or SIGTERM with a grace); 125 is a failure of
		// containment.
		var ws unix.WaitStatus
		if _, err := unix.Wait4(s.starter.pid, &ws, 0, nil); err != nil || (ws.Exited() && ws.ExitStatus() == 125) {
			failures++
		}
		unix.Close(s.starter.pidfd)
		s.starter.pidfd = 0
		closeAll(s.members)
	}
	k := max(len(pairs), 1)
	note := fmt.Sprintf("%d sessions at once; failures %d; idle per session (starter + guard): PSS %.2f MiB, %.1f threads, %.2f wake-ups/s over %v",
		*n, failures, float64(pss)/1024/float64(k), float64(threads)/float64(k), float64(sw1-sw0)/dur.Seconds()/float64(k), *dur)
	if firstErr != nil {
		note += "; first failure: " + firstErr.Error()
	}
	emit("e", fmt.Sprintf("%d sessions: spawn → ack and Engine running", *n), lat, note)
	return nil
}
