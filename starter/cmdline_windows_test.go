package starter

import (
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"golang.org/x/sys/windows"
)

func TestSplitCommandLineSplitsAsGoSplitsOsArgs(t *testing.T) {
	got, _ := splitCommandLine(windows.UTF16PtrToString(windows.GetCommandLine()))
	if !slices.Equal(got, os.Args) {
		t.Errorf("splitCommandLine(this process's command line) = %q, want os.Args %q", got, os.Args)
	}
	for _, tt := range []struct {
		line string
		want []string
	}{
		{`a  b	c`, []string{"a", "b", "c"}},
		{`"a b" c`, []string{"a b", "c"}},
		{`a\\\"b`, []string{`a\"b`}},
		{`a\\b`, []string{`a\\b`}},
		{`"a""b" c`, []string{`a"b c`}},
		{`"a\\" b`, []string{`a\`, "b"}},
		{`  `, nil},
		{`""`, []string{""}},
	} {
		if got, _ := splitCommandLine(tt.line); !slices.Equal(got, tt.want) {
			t.Errorf("splitCommandLine(%s) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

// TestRawTailIsTheArgumentsAsWritten: for any arguments, the tail found
// in a command line composed from them splits into them again.
func TestRawTailIsTheArgumentsAsWritten(t *testing.T) {
	const alphabet = ` a"\	b`
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		argv := make([]string, 1+r.IntN(4))
		for i := range argv {
			b := make([]byte, r.IntN(6))
			for j := range b {
				b[j] = alphabet[r.IntN(len(alphabet))]
			}
			argv[i] = string(b)
		}
		line := windows.ComposeCommandLine(append([]string{`C:\s s\session-starter.exe`, "--ack", "--"}, argv...))
		tail, ok := rawTail(line, argv)
		if !ok {
			t.Fatalf("rawTail(%s, %q): not found", line, argv)
		}
		if got, _ := splitCommandLine(tail); !slices.Equal(got, argv) {
			t.Fatalf("rawTail(%s) = %s, which splits into %q, want %q", line, tail, got, argv)
		}
	}
}

func TestRawTailRefusesArgumentsThatAreNotTheTail(t *testing.T) {
	line := `ss.exe --ack -- prog "a b"`
	for _, argv := range [][]string{{"prog", "a"}, {"a b", "prog"}, {}, {"ss.exe", "--ack", "--", "prog", "a b", "x"}} {
		if tail, ok := rawTail(line, argv); ok {
			t.Errorf("rawTail(%s, %q) = %q, want not found", line, argv, tail)
		}
	}
	if tail, ok := rawTail(line, []string{"prog", "a b"}); !ok || tail != `prog "a b"` {
		t.Errorf(`rawTail = %q, %v; want prog "a b"`, tail, ok)
	}
}
