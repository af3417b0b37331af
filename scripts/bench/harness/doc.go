// Command harness times session-starter for scripts/bench/run.sh: start-up
// against /bin/true, tini and dumb-init; reaction from each trigger to the
// moment the last process of an Engine tree is gone; the end of big groups
// against a bare killpg; a bounded fork storm; idle RSS and wake-ups.
//
// Every measurement prints one tab-separated line
//
//	row<TAB>label<TAB>runs<TAB>median<TAB>p99<TAB>note
//
// that run.sh turns into the markdown table.
//
// # Clocks and events
//
// Times are CLOCK_MONOTONIC (Go's monotonic reading). "Trigger" is the
// instant just before the harness makes the syscall that causes the end
// condition: pidfd_send_signal(SIGKILL) to the Engine alone, to the
// launcher, or SIGTERM to the starter; close() of the last write end of
// the control pipe. "Gone" is the instant epoll_wait returns the pidfd of
// a process as readable, which the kernel does when the process exits
// (it is a zombie or reaped then: not live). The harness holds a pidfd of
// every member of the tree, opened from the PIDs the tree prints and
// checked to be in the Engine's group after the open.
//
// # Safety
//
// The harness is a subreaper, so every orphan of the trees it starts is its
// child and is reaped here. It signals only processes it holds a pidfd of,
// and groups only through the pidfd of their leader
// (PIDFD_SIGNAL_PROCESS_GROUP) or as kill(-leader) while the leader is its
// own unreaped child. Every tree process has an alarm.
package main
