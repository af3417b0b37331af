package sys

import "syscall"

// fatalHere are the signals of fatalStops that only Linux has.
var fatalHere = []syscall.Signal{syscall.SIGSTKFLT}
