package starter

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/session-starter/session-starter/internal/sys"
)

// ErrUnsafeBatchArgument means an argument cannot be passed to a batch
// file unchanged: cmd.exe would cut the command line at it or run part of
// it as a command, whatever the quoting.
var ErrUnsafeBatchArgument = errors.New("argument cannot be passed to a batch file safely")

// commandLine returns the application to create and its command line.
// A program gets the command line of engineCommandLine. A batch file is
// run by cmd.exe of the system directory, with the quoting of
// batchCommandLine. A batch file is a .bat or .cmd file.
func commandLine(program string, argv []string) (app, cmdline string, err error) {
	if ext := strings.ToLower(filepath.Ext(program)); ext != ".bat" && ext != ".cmd" {
		return program, engineCommandLine(argv), nil
	}
	sysdir, err := sys.GetSystemDirectory()
	if err != nil {
		return "", "", fmt.Errorf("find cmd.exe: %w", err)
	}
	cmdline, err = batchCommandLine(program, argv[1:])
	if err != nil {
		return "", "", err
	}
	return filepath.Join(sysdir, "cmd.exe"), cmdline, nil
}

// batchCommandLine quotes a batch file and its arguments for cmd.exe
// against argument injection, with the rules of Rust's standard library
// since its fix of CVE-2024-24576 ("BatBadBut"):
//
//   - cmd.exe runs with /e:ON (command extensions, needed for the %
//     rewrite below), /v:OFF (no delayed !VAR! expansion) and /d (no
//     AutoRun commands), and /c takes the whole line in one more pair of
//     quotes, which cmd.exe strips;
//   - an argument is quoted unless it is made only of letters, digits and
//     #$*+-./:?@\_ (anything else may be a cmd.exe metacharacter), and
//     when it is empty or ends in a backslash;
//   - inside it a " is doubled, after doubling the backslashes before
//     it, and backslashes before the closing quote are doubled;
//   - every % becomes %%cd:~,% — a zero-length substring of the
//     current directory — so no %VAR% is expanded;
//   - a CR or LF, which would end the command, and a NUL are refused, as
//     is a script path holding " or % or ending in a backslash.
func batchCommandLine(script string, args []string) (string, error) {
	if strings.ContainsAny(script, "\"%\x00") || strings.HasSuffix(script, `\`) {
		return "", fmt.Errorf("%w: script path %q", ErrUnsafeBatchArgument, script)
	}
	var b strings.Builder
	b.WriteString(`cmd.exe /e:ON /v:OFF /d /c ""`)
	b.WriteString(script)
	b.WriteString(`"`)
	for _, a := range args {
		if strings.ContainsAny(a, "\r\n\x00") {
			return "", fmt.Errorf("%w: %q", ErrUnsafeBatchArgument, a)
		}
		b.WriteByte(' ')
		appendBatchArg(&b, a)
	}
	b.WriteString(`"`)
	return b.String(), nil
}

func appendBatchArg(b *strings.Builder, a string) {
	quote := a == "" || strings.HasSuffix(a, `\`) || strings.ContainsFunc(a, func(r rune) bool {
		safe := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(`#$*+-./:?@\_`, r)
		return r <= unicode.MaxASCII && !safe || unicode.IsControl(r)
	})
	if quote {
		b.WriteByte('"')
	}
	backslashes := 0
	for _, r := range a {
		switch r {
		case '\\':
			backslashes++
			b.WriteRune(r)
			continue
		case '"':
			b.WriteString(strings.Repeat(`\`, backslashes))
			b.WriteByte('"')
		case '%':
			b.WriteString("%%cd:~,")
		}
		backslashes = 0
		b.WriteRune(r)
	}
	if quote {
		b.WriteString(strings.Repeat(`\`, backslashes))
		b.WriteByte('"')
	}
}
