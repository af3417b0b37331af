package starter

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestBatchCommandLineQuotesForCmd(t *testing.T) {
	const script = `C:\tools\run it.cmd`
	const head = `cmd.exe /e:ON /v:OFF /d /c ""C:\tools\run it.cmd"`
	tests := []struct {
		name string
		arg  string
		want string // the argument as it appears on the line
	}{
		{"safe characters stay bare", `a-b_c.d/e:f?g@h#i$j*k+l\m`, `a-b_c.d/e:f?g@h#i$j*k+l\m`},
		{"space", "two words", `"two words"`},
		{"empty", "", `""`},
		{"trailing backslash doubled inside quotes", `dir\`, `"dir\\"`},
		{"ampersand", "a&calc", `"a&calc"`},
		{"pipe and redirection", "a|b>c<d", `"a|b>c<d"`},
		{"caret", "^x", `"^x"`},
		{"quote doubled, backslashes before it doubled", `a\"b`, `"a\\""b"`},
		{"percent cannot expand", "%PATH%", `"%%cd:~,%PATH%%cd:~,%"`},
		{"bang", "!x!", `"!x!"`},
		{"non-ASCII letter stays bare", "été", "été"},
		{"tab", "a\tb", "\"a\tb\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := batchCommandLine(script, []string{tt.arg})
			want := head + " " + tt.want + `"`
			if err != nil || got != want {
				t.Errorf("batchCommandLine(%q) = %s, %v; want %s", tt.arg, got, err, want)
			}
		})
	}
}

func TestBatchCommandLineRefusesWhatCannotBeQuoted(t *testing.T) {
	for _, tt := range []struct {
		name, script, arg string
	}{
		{"line feed ends the command", `C:\x.bat`, "a\ncalc"},
		{"carriage return", `C:\x.bat`, "a\rcalc"},
		{"NUL", `C:\x.bat`, "a\x00b"},
		{"quote in the script path", `C:\a"b.bat`, "x"},
		{"percent in the script path", `C:\%TEMP%.bat`, "x"},
		{"script path ends in a backslash", `C:\x.bat\`, "x"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got, err := batchCommandLine(tt.script, []string{tt.arg}); !errors.Is(err, ErrUnsafeBatchArgument) {
				t.Errorf("batchCommandLine(%q, %q) = %q, %v; want ErrUnsafeBatchArgument", tt.script, tt.arg, got, err)
			}
		})
	}
}

func TestCommandLineRunsOnlyBatchFilesThroughCmd(t *testing.T) {
	for _, tt := range []struct {
		program string
		cmd     bool
	}{
		{`C:\x\tool.exe`, false},
		{`C:\x\npx.cmd`, true},
		{`C:\x\OLD.BAT`, true},
		{`C:\x\script.cmd.exe`, false},
	} {
		app, line, err := commandLine(tt.program, []string{"prog", "a b"})
		if err != nil {
			t.Fatal(err)
		}
		if gotCmd := strings.EqualFold(filepath.Base(app), "cmd.exe"); gotCmd != tt.cmd {
			t.Errorf("commandLine(%q) runs %q (%s); want through cmd.exe: %v", tt.program, app, line, tt.cmd)
		}
	}
}
