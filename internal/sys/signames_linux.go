package sys

import "golang.org/x/sys/unix"

// Linux's own signals, whose default action ends a process
// ([DeadlySignals]): named as kill -l names them, so that a report or a
// record of an Engine that died of one says which.
func init() {
	signalNames[unix.SIGSTKFLT] = "STKFLT"
	signalNames[unix.SIGIO] = "IO"
	signalNames[unix.SIGPWR] = "PWR"
}
