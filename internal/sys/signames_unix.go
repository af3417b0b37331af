//go:build unix

package sys

import "syscall"

var signalNames = map[syscall.Signal]string{
	syscall.SIGABRT: "ABRT", syscall.SIGALRM: "ALRM", syscall.SIGBUS: "BUS",
	syscall.SIGCHLD: "CHLD", syscall.SIGCONT: "CONT", syscall.SIGFPE: "FPE",
	syscall.SIGHUP: "HUP", syscall.SIGILL: "ILL", syscall.SIGINT: "INT",
	syscall.SIGKILL: "KILL", syscall.SIGPIPE: "PIPE", syscall.SIGPROF: "PROF",
	syscall.SIGQUIT: "QUIT", syscall.SIGSEGV: "SEGV", syscall.SIGSTOP: "STOP",
	syscall.SIGSYS: "SYS", syscall.SIGTERM: "TERM", syscall.SIGTRAP: "TRAP",
	syscall.SIGTSTP: "TSTP", syscall.SIGTTIN: "TTIN", syscall.SIGTTOU: "TTOU",
	syscall.SIGURG: "URG", syscall.SIGUSR1: "USR1", syscall.SIGUSR2: "USR2",
	syscall.SIGVTALRM: "VTALRM", syscall.SIGWINCH: "WINCH", syscall.SIGXCPU: "XCPU",
	syscall.SIGXFSZ: "XFSZ",
}
