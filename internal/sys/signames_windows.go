package sys

import "syscall"

var signalNames = map[syscall.Signal]string{
	syscall.SIGHUP: "HUP", syscall.SIGINT: "INT", syscall.SIGKILL: "KILL",
	syscall.SIGTERM: "TERM", syscall.SIGQUIT: "QUIT",
}
