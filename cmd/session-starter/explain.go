package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/session-starter/session-starter/internal/cgroup"
	"github.com/session-starter/session-starter/internal/sys"
	"github.com/session-starter/session-starter/internal/wire"
	"github.com/session-starter/session-starter/starter"
	"github.com/session-starter/session-starter/starter/launch"
)

// explain is --explain: it writes to w, one "key: value" line per
// question and indented lines of why, the mode a session of inv would be
// held by here, the parent --watch-parent would watch, the kernel
// features found and, with PROGRAM, where PATH finds it. The mode comes
// from starter.ExplainContainment, the decision a session makes itself;
// nothing is started.
func explain(inv *invocation, w io.Writer) starter.Verdict {
	c := inv.opts.Containment
	mode, why, err := starter.ExplainContainment(c)
	switch {
	case err != nil:
		fmt.Fprintf(w, "mode: none\n  --containment %s: a session would exit %d: %v\n", c, starter.Result{}.Verdict(err).Code, err)
	case why != nil:
		fmt.Fprintf(w, "mode: %s\n  --containment %s fell back to the process group: %v\n  for cgroup mode: %s\n",
			mode, c, why, cgroup.Fix(why))
	case c == launch.ContainAuto && mode == wire.ModeCgroup:
		fmt.Fprintf(w, "mode: %s\n  --containment auto: a session cgroup can be made here, and nothing that stays in it escapes\n", mode)
	case c == launch.ContainAuto:
		fmt.Fprintf(w, "mode: %s\n  --containment auto: the only mode here\n", mode)
	default:
		fmt.Fprintf(w, "mode: %s\n  asked for: --containment %s\n", mode, c)
	}
	if lim := inv.opts.Limits; lim.Any() || len(lim.Calls) > 0 || inv.opts.CgroupParent != "" {
		switch move, err := starter.ExplainLimits(lim, inv.opts.CgroupParent); {
		case err != nil:
			fmt.Fprintf(w, "limits: no\n  a session would exit %d: %v\n", starter.Result{}.Verdict(err).Code, err)
		case move:
			fmt.Fprintln(w, "limits: yes\n  session-starter is alone in its cgroup: it would move into a leaf of its own there, enable the controllers for the session cgroup, and move back at the end")
		default:
			fmt.Fprintln(w, "limits: yes\n  the controllers can be enabled where the session cgroup is made")
		}
	}
	cgErr := explainPlatform(w, mode)
	explainParent(w, inv)
	if len(inv.opts.Argv) > 0 {
		explainProgram(w, inv.opts.Argv[0])
	}
	explainKernel(w, cgErr)
	return starter.Verdict{}
}

// explainParent says which process --watch-parent would watch, and
// whether it is a shell or a package runner standing between the
// launcher and session-starter: then it is what is watched, and it may
// outlive the launcher.
func explainParent(w io.Writer, inv *invocation) {
	ppid := os.Getppid()
	p := parentOf(ppid)
	name := p.comm
	if p.exe != "" {
		name += ", " + p.exe
	}
	switch kind := wrapperKind(p.comm, p.exe, p.argv); {
	case inv.opts.ParentPID != 0 && inv.opts.ParentPID != ppid:
		fmt.Fprintf(w, "parent: gone\n  --parent-pid %d is not the parent (%d): a session would execute nothing and exit %d\n",
			inv.opts.ParentPID, ppid, wire.ExitContainment)
	case ppid <= 1:
		fmt.Fprintf(w, "parent: none\n  the parent is PID %d: --watch-parent does not watch it (a container's init, or a launcher gone already)\n", ppid)
	case p.comm == "" && p.exe == "":
		fmt.Fprintf(w, "parent: unknown\n  pid %d: its command could not be read; --watch-parent watches it\n", ppid)
	case kind == "":
		fmt.Fprintf(w, "parent: launcher\n  pid %d (%s): neither a shell nor a package runner; --watch-parent watches it\n", ppid, name)
	default:
		fmt.Fprintf(w, "parent: wrapper\n  pid %d (%s) is %s: --watch-parent would watch it, not the launcher behind it, "+
			"and it can outlive the launcher; add --watch-stdin (the launcher's end of the Engine's stdin closes with it), "+
			"or let the wrapper exec session-starter\n", ppid, name, kind)
	}
}

// parent is what /proc (or the platform) tells of the parent process;
// any of it may be empty.
type parent struct {
	comm, exe string
	argv      []string
}

// wrapperKind names what kind of wrapper a process is from its command
// name, executable and arguments — a shell, a package runner (npx, uvx),
// sudo — or returns "" for anything else, which is taken to be the
// launcher.
func wrapperKind(comm, exe string, argv []string) string {
	names := []string{comm, filepath.Base(exe)}
	if len(argv) > 0 {
		names = append(names, filepath.Base(argv[0]))
	}
	// Node and Python run a package runner as a script: npx is node
	// running npx-cli.js.
	if len(argv) > 1 {
		names = append(names, strings.TrimSuffix(filepath.Base(argv[1]), filepath.Ext(argv[1])))
	}
	for _, n := range names {
		n = strings.TrimPrefix(n, "-") // a login shell's argv[0]
		if strings.HasPrefix(n, "npm ") {
			n = "npm" // npm's process title: "npm exec …"
		}
		switch n {
		case "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish", "tcsh", "csh", "busybox":
			return "a shell (" + n + ")"
		case "npx", "npx-cli", "npm", "npm-cli", "pnpm", "pnpx", "yarn", "bunx", "uv", "uvx", "pipx", "poetry":
			return "a package runner (" + n + ")"
		case "sudo", "doas", "su":
			return "a privilege wrapper (" + n + ")"
		}
	}
	return ""
}

// lookProgram finds program as a session does (sys.Resolve), with the
// status a session would exit with where it is not there
// (wire.ExitStatusFor: 127 not found, 126 not executable).
func lookProgram(program string) (string, int, error) {
	found, err := sys.Resolve(program, os.Environ())
	if err != nil {
		return "", wire.ExitStatusFor(err), err
	}
	return found, 0, nil
}

// explainProgram says where PATH finds program, as a session would look
// it up: a launcher whose PATH differs (a GUI app's) finds another one,
// or none.
func explainProgram(w io.Writer, program string) {
	found, code, err := lookProgram(program)
	if err != nil {
		what := "not found"
		if code == wire.ExitCannotExecute {
			what = "cannot be executed"
		}
		fmt.Fprintf(w, "program: %s\n  %q: %v in PATH=%s (a session would exit %d)\n", what, program, err, os.Getenv("PATH"), code)
		return
	}
	abs, _ := filepath.Abs(found)
	fmt.Fprintf(w, "program: %s\n  %s, found in this PATH; a launcher started from a desktop has another PATH: give it this absolute path\n", abs, program)
}
