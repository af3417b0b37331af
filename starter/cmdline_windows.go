package starter

import (
	"slices"
	"strings"

	"github.com/session-starter/session-starter/internal/sys"
)

// engineCommandLine returns the Engine's command line for a program that
// is not a batch file: where argv is the tail of this process's own
// command line, that tail as the launcher wrote it, byte for byte, so that
// a program that splits its command line in its own way sees what the
// launcher wrote; else argv quoted for the C runtime's parser.
func engineCommandLine(argv []string) string {
	if raw, ok := rawTail(sys.CommandLine(), argv); ok {
		return raw
	}
	return sys.ComposeCommandLine(argv)
}

// rawTail returns the part of cmdline that holds argv, when argv is what
// cmdline's last len(argv) arguments split into.
func rawTail(cmdline string, argv []string) (string, bool) {
	args, starts := splitCommandLine(cmdline)
	n := len(args) - len(argv)
	if len(argv) == 0 || n < 1 || !slices.Equal(args[n:], argv) {
		return "", false
	}
	return cmdline[starts[n]:], true
}

// splitCommandLine splits a command line as Go splits its own into
// os.Args (os.commandLineToArgv: the C runtime's rules before 2008, where
// "" inside quotes is a quote and ends the quoting), and returns where
// each argument starts.
func splitCommandLine(cmd string) (args []string, starts []int) {
	i := 0
	for i < len(cmd) {
		if cmd[i] == ' ' || cmd[i] == '\t' {
			i++
			continue
		}
		starts = append(starts, i)
		var b strings.Builder
		inQuote, slashes := false, 0
	arg:
		for ; i < len(cmd); i++ {
			switch c := cmd[i]; c {
			case ' ', '\t':
				if !inQuote {
					break arg
				}
			case '"':
				b.WriteString(strings.Repeat(`\`, slashes/2))
				if slashes%2 == 0 {
					if inQuote && i+1 < len(cmd) && cmd[i+1] == '"' {
						b.WriteByte('"')
						i++
					}
					inQuote = !inQuote
				} else {
					b.WriteByte('"')
				}
				slashes = 0
				continue
			case '\\':
				slashes++
				continue
			}
			b.WriteString(strings.Repeat(`\`, slashes))
			slashes = 0
			b.WriteByte(cmd[i])
		}
		b.WriteString(strings.Repeat(`\`, slashes))
		args = append(args, b.String())
	}
	return args, starts
}
