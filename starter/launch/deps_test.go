package launch

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestLaunchImportsNothingOfTheSupervisor: on every platform, a launcher
// that imports this package links none of session-starter's process code
// — no gate, guard or starter, none of their internal packages, no logger
// or flag parser — and no golang.org/x/sys: its one system call, on
// Windows, is package syscall's.
func TestLaunchImportsNothingOfTheSupervisor(t *testing.T) {
	if runtime.GOOS != "linux" {
		// Under Wine there is no go command; the Linux run lists the
		// imports of every platform.
		t.Skip("the imports of every platform are listed by the Linux run")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no go command in PATH to list the imports with")
		}
		t.Skip("no go command in PATH to list the imports with")
	}
	const module = "github.com/session-starter/session-starter/"
	for _, goos := range []string{"linux", "darwin", "freebsd", "windows"} {
		cmd := exec.Command(goBin, "list", "-deps", "-f", "{{.ImportPath}}", ".")
		cmd.Env = append(os.Environ(), "GOOS="+goos, "CGO_ENABLED=0")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("GOOS=%s go list: %v\n%s", goos, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			own := strings.HasPrefix(dep, module) && dep != module+"starter/launch"
			foreign := (strings.HasPrefix(dep, "github.com/") && !strings.HasPrefix(dep, module)) ||
				strings.HasPrefix(dep, "golang.org/x/sys/")
			if own || foreign {
				t.Errorf("GOOS=%s: package launch imports %s", goos, dep)
			}
		}
	}
}
