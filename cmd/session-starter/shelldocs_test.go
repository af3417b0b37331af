package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/spf13/pflag"

	"github.com/session-starter/session-starter/internal/wire"
)

// The man page and the bash, zsh and fish completions are generated from
// the flags' help, as the manual's flag list of docs_test.go is: the man
// page gives each flag's long text, the completions its --help line. They
// are committed under docs/: make dist copies them into the release (the
// .deb, the npm package, the wheel, the source archive the Homebrew
// formula installs from). The product binary has no code for them. After
// a change to a flag in flags.go, regenerate them with the manual's list:
//
//	go test ./cmd/session-starter -run 'TestDocsUpToDate|TestShellDocsUpToDate' -update

// shellDoc is one generated file of docs/ and how it is written.
type shellDoc struct {
	path   string
	render func([]cliFlag) string
}

var shellDocs = []shellDoc{
	{"docs/session-starter.1", manPage},
	{"docs/session-starter.bash", bashCompletion},
	{"docs/_session-starter", zshCompletion},
	{"docs/session-starter.fish", fishCompletion},
}

// regenerate is the command that writes docs/, as the files' headers name it.
const regenerate = "go test ./cmd/session-starter -run TestShellDocsUpToDate -update"

// cliFlag is one flag as the man page and the completions need it.
type cliFlag struct {
	long, short string
	// value names the flag's value (D, N); empty for a switch.
	value string
	doc   flagDoc
}

// cliFlags lists the flags of fs in --help's order.
func cliFlags(fs *pflag.FlagSet) []cliFlag {
	var flags []cliFlag
	for _, g := range flagDocs(fs) {
		for _, d := range g.Flags {
			f := fs.Lookup(d.Name)
			c := cliFlag{long: f.Name, short: f.Shorthand, doc: d}
			if f.Value.Type() != "bool" {
				c.value, _ = pflag.UnquoteUsage(f)
			}
			flags = append(flags, c)
		}
	}
	return flags
}

// valueFlags lists how the flags that take a value are typed, the long
// names first, then the short ones.
func valueFlags(flags []cliFlag) []string {
	var long, short []string
	for _, f := range flags {
		if f.value == "" {
			continue
		}
		long = append(long, "--"+f.long)
		if f.short != "" {
			short = append(short, "-"+f.short)
		}
	}
	return append(long, short...)
}

// flagRef matches a long flag named in text ("--grace"), or "--".
var flagRef = regexp.MustCompile(`--(?:[a-z][a-z-]*[a-z])?`)

// roff escapes text for a man page's filled text: backslashes, flags in
// bold with minus signs, a dash as \(em, an ellipsis as three dots, other
// characters outside ASCII as groff's \[uXXXX], and a control character
// at a line's start.
func roff(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\e`)
		case r == '—':
			b.WriteString(`\(em`)
		case r == '…':
			// groff has no ASCII form of \[u2026]: man in the C locale
			// would warn.
			b.WriteString("...")
		case r > utf8.RuneSelf-1:
			fmt.Fprintf(&b, `\[u%04X]`, r)
		default:
			b.WriteRune(r)
		}
	}
	out := flagRef.ReplaceAllStringFunc(b.String(), func(f string) string {
		return `\fB` + strings.ReplaceAll(f, "-", `\-`) + `\fR`
	})
	if strings.HasPrefix(out, ".") || strings.HasPrefix(out, "'") {
		out = `\&` + out
	}
	return out
}

// manPage is session-starter(1), in man(7) macros.
func manPage(flags []cliFlag) string {
	var b strings.Builder
	fmt.Fprintf(&b, `.\" session-starter(1), generated from the flags' help (cmd/session-starter/flags.go) by
.\"   %s
.TH SESSION-STARTER 1 "" "session-starter" "User Commands"
.SH NAME
session-starter \- run a program so that every process it starts ends with it
.SH SYNOPSIS
.B session-starter
.RI [ flags ]
.RB [ \-\- ]
.I PROGRAM
.RI [ ARG ...]
.br
.B session-starter \-\-reclaim
.RB [ \-\-dry\-run ]
.RB [ \-\-status\-fd
.IR N ]
.br
.B session-starter \-\-explain
.RI [ flags ]
.RI [ PROGRAM ]
.SH DESCRIPTION
`, regenerate)
	for _, p := range []string{
		"session-starter runs PROGRAM, the Engine, in a new process group behind a guard. " +
			"When the session ends, every process of the session ends too, " +
			"and session-starter exits with the Engine's status. " +
			"A launcher starts it in place of PROGRAM: an MCP client, a shell wrapper, a CI step, a container.",
		"The session ends when the Engine exits, the launcher is gone (--watch-parent, --watch-stdin), " +
			"the control descriptor reaches end of input (--control-fd), --timeout passes, " +
			"or SIGTERM, SIGINT, SIGHUP or SIGQUIT arrives.",
		"The first argument that is not a flag starts PROGRAM; -- before it is needed only for a PROGRAM " +
			"whose name starts with a dash. Durations D are seconds (10, 0.5) with an optional suffix " +
			"s, m, h or d (90s, 1.5m, 1d), or Go durations (1m30s).",
	} {
		b.WriteString(".PP\n" + roff(p) + "\n")
	}
	b.WriteString(".SH OPTIONS\n")
	for _, f := range flags {
		b.WriteString(".TP\n")
		if f.short != "" {
			b.WriteString(`\fB\-` + f.short + `\fR, `)
		}
		b.WriteString(`\fB\-\-` + strings.ReplaceAll(f.long, "-", `\-`) + `\fR`)
		if f.value != "" {
			b.WriteString(` \fI` + roff(f.value) + `\fR`)
		}
		b.WriteString("\n" + roff(f.doc.Meaning))
		if f.doc.Default != "" {
			b.WriteString(` Default: \fB` + roff(f.doc.Default) + `\fR.`)
		}
		b.WriteString("\n")
	}
	b.WriteString(".SH EXIT STATUS\n" +
		roff("The Engine's exit status; when the Engine dies of a signal, session-starter dies of the same signal. "+
			"Its own statuses:") + "\n")
	for _, s := range []struct {
		code    int
		meaning string
	}{
		{wire.ExitUsage, "A usage error; nothing was started."},
		{wire.ExitTimeout, "--timeout fired."},
		{wire.ExitContainment, "Containment failed (nothing was executed), the guard was lost, or processes of the session survived the end."},
		{wire.ExitCannotExecute, "PROGRAM was found but cannot be executed."},
		{wire.ExitNotFound, "PROGRAM was not found."},
	} {
		fmt.Fprintf(&b, ".TP\n.B %d\n%s\n", s.code, roff(s.meaning))
	}
	b.WriteString(`.SH SEE ALSO
The manual, on modes, signals and the terminal, the ledger and \fB\-\-reclaim\fR, limits and platforms:
.PP
.RS
.B go doc \-all github.com/session\-starter/session\-starter/cmd/session\-starter
.RE
.PP
The README: https://github.com/session\-starter/session\-starter#readme
.PP
.BR timeout (1),
.BR kill (1)
`)
	return b.String()
}

// bashCompletion is the bash completion: every flag where a flag can
// go, nothing for a flag's value, and after "--" or PROGRAM the words of
// PROGRAM's own completion (bash-completion's _command_offset where it is
// loaded, else command names, then file names).
func bashCompletion(flags []cliFlag) string {
	var words []string
	var short []string
	for _, f := range flags {
		words = append(words, "--"+f.long)
		if f.short != "" {
			short = append(short, "-"+f.short)
		}
	}
	words = append(words, short...)
	return fmt.Sprintf(`# bash completion for session-starter, generated from the flags' help
# (cmd/session-starter/flags.go) by
#   %s
# bash 3.2 (macOS) too: no mapfile; compopt is bash 4's.

_session_starter() {
	local cur=${COMP_WORDS[COMP_CWORD]} i=1 program= w
	COMPREPLY=()
	# The words before the current one: flags and their values, then "--"
	# or PROGRAM. bash splits --flag=value at "=" into three words.
	while ((i < COMP_CWORD)); do
		case ${COMP_WORDS[i]} in
		--)
			program=$((i + 1))
			break
			;;
		%s)
			[[ ${COMP_WORDS[i + 1]-} == = ]] && ((i++))
			((i++))
			;;
		=) ((i++)) ;;
		-*) ;;
		*)
			program=$i
			break
			;;
		esac
		((i++))
	done
	if [[ -z $program ]]; then
		# A flag's value: nothing to offer.
		((i > COMP_CWORD)) || [[ $cur == = ]] && return 0
		if [[ $cur == -* ]]; then
			while IFS= read -r w; do COMPREPLY+=("$w"); done < <(compgen -W '%s' -- "$cur")
			return 0
		fi
		program=$COMP_CWORD
	fi
	if declare -F _command_offset >/dev/null; then
		_command_offset "$program"
	elif ((program == COMP_CWORD)); then
		while IFS= read -r w; do COMPREPLY+=("$w"); done < <(compgen -c -- "$cur")
	else
		compopt -o default 2>/dev/null
	fi
}
complete -F _session_starter session-starter
`, regenerate, strings.Join(valueFlags(flags), " | "), strings.Join(words, " "))
}

// zshDesc makes a flag's --help line fit an _arguments description.
func zshDesc(s string) string {
	return strings.NewReplacer(`'`, `'\''`, `[`, `(`, `]`, `)`, `\`, `\\`, `:`, `\:`).Replace(s)
}

// zshCompletion is the zsh completion (_arguments): every flag, the value
// flags' values named and not completed, then PROGRAM's command name and
// its own completion; "--" ends the flags.
func zshCompletion(flags []cliFlag) string {
	var b strings.Builder
	fmt.Fprintf(&b, `#compdef session-starter
# zsh completion for session-starter, generated from the flags' help
# (cmd/session-starter/flags.go) by
#   %s

_arguments -S -A '-*' \
`, regenerate)
	for _, f := range flags {
		desc := "[" + zshDesc(f.doc.Line) + "]"
		long, short := "--"+f.long, "-"+f.short
		arg := ""
		if f.value != "" {
			long, short = long+"=", short+"+"
			arg = ":" + f.value + ": "
		}
		if f.short == "" {
			fmt.Fprintf(&b, "  '%s%s%s' \\\n", long, desc, arg)
		} else {
			fmt.Fprintf(&b, "  '(-%s --%s)'{%s,%s}'%s%s' \\\n", f.short, f.long, short, long, desc, arg)
		}
	}
	b.WriteString("  '(-)1:program:_command_names -e' \\\n  '*::arguments:_normal'\n")
	return b.String()
}

// fishCompletion is the fish completion: every flag where a flag can go,
// nothing for a flag's value, and after "--" or PROGRAM the completion of
// PROGRAM's own words (complete -C).
func fishCompletion(flags []cliFlag) string {
	var b strings.Builder
	fmt.Fprintf(&b, `# fish completion for session-starter, generated from the flags' help
# (cmd/session-starter/flags.go) by
#   %s

# Prints where the word being completed is: "flag", "value" (a flag's),
# or "program N", N the index among the words of PROGRAM's name.
function __session_starter_where
    set -l words (commandline -opc)
    set -l i 2
    while test $i -le (count $words)
        switch $words[$i]
            case --
                echo program (math $i + 1)
                return
            case %s
                set i (math $i + 1)
            case '-*'
            case '*'
                echo program $i
                return
        end
        set i (math $i + 1)
    end
    if test $i -gt (math (count $words) + 1)
        echo value
    else if string match -q -- '-*' (commandline -ct)
        echo flag
    else
        echo program $i
    end
end

# Prints the completions of PROGRAM and its arguments.
function __session_starter_program
    set -l start (string split ' ' -- (__session_starter_where))[2]
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    set -l line
    if test $start -le (count $words)
        set line (string escape -- $words[$start..-1])
    end
    complete -C (string join -- ' ' $line "$cur")
end

complete -c session-starter -f
complete -c session-starter -n 'string match -q "program *" (__session_starter_where)' -a '(__session_starter_program)'
`, regenerate, strings.Join(valueFlags(flags), " "))
	for _, f := range flags {
		b.WriteString("complete -c session-starter -n 'test (__session_starter_where) = flag'")
		if f.short != "" {
			b.WriteString(" -s " + f.short)
		}
		b.WriteString(" -l " + f.long)
		if f.value != "" {
			b.WriteString(" -x")
		}
		b.WriteString(" -d '" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(f.doc.Line) + "'\n")
	}
	return b.String()
}

// TestShellDocsUpToDate: the man page and the completions of docs/ are
// what the flags' help (flags.go) generates today; -update rewrites them.
func TestShellDocsUpToDate(t *testing.T) {
	flags := cliFlags(newFlagSet(&invocation{}))
	for _, d := range shellDocs {
		want := d.render(flags)
		got, err := os.ReadFile(d.path)
		if err == nil && string(got) == want {
			continue
		}
		if *update {
			if err := os.WriteFile(d.path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: rewritten from the flags' help", d.path)
			continue
		}
		if err != nil {
			t.Errorf("%v; run\n\t%s", err, regenerate)
			continue
		}
		t.Errorf("%s differs from what the flags' help (flags.go) generates; run\n\t%s", d.path, regenerate)
	}
}

// TestShellDocsNameEveryFlag: the committed man page lists every flag
// under OPTIONS with its value, and each completion offers every flag,
// long and short.
func TestShellDocsNameEveryFlag(t *testing.T) {
	read := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	page, bash, zsh, fish := read("docs/session-starter.1"), read("docs/session-starter.bash"),
		read("docs/_session-starter"), read("docs/session-starter.fish")
	_, options, _ := strings.Cut(page, "\n.SH OPTIONS\n")
	options, _, _ = strings.Cut(options, "\n.SH ")
	_, bashWords, _ := strings.Cut(bash, "compgen -W '")
	bashWords, _, _ = strings.Cut(bashWords, "'")
	offered := strings.Fields(bashWords)
	for _, f := range cliFlags(newFlagSet(&invocation{})) {
		item := `\fB\-\-` + strings.ReplaceAll(f.long, "-", `\-`) + `\fR`
		if f.value != "" {
			item += ` \fI` + f.value + `\fR`
		}
		if !strings.Contains(options, ".TP\n"+item+"\n") && !strings.Contains(options, `, `+item+"\n") {
			t.Errorf("the man page's OPTIONS have no item %q", item)
		}
		want := []string{"--" + f.long}
		if f.short != "" {
			want = append(want, "-"+f.short)
		}
		for _, w := range want {
			found := false
			for _, o := range offered {
				found = found || o == w
			}
			if !found {
				t.Errorf("the bash completion does not offer %s", w)
			}
		}
		var zspec, fspec string
		switch {
		case f.short != "" && f.value != "":
			zspec, fspec = "{-"+f.short+"+,--"+f.long+"=}'[", " -s "+f.short+" -l "+f.long+" -x -d "
		case f.short != "":
			zspec, fspec = "{-"+f.short+",--"+f.long+"}'[", " -s "+f.short+" -l "+f.long+" -d "
		case f.value != "":
			zspec, fspec = "'--"+f.long+"=[", " -l "+f.long+" -x -d "
		default:
			zspec, fspec = "'--"+f.long+"[", " -l "+f.long+" -d "
		}
		if !strings.Contains(zsh, zspec) {
			t.Errorf("the zsh completion has no %q for --%s", zspec, f.long)
		}
		if !strings.Contains(fish, fspec) {
			t.Errorf("the fish completion has no %q for --%s", fspec, f.long)
		}
	}
}

// TestShellDocsAreTheSameOnEveryRun: two renderings of fresh flag sets
// are byte for byte the same, so that make dist is reproducible.
func TestShellDocsAreTheSameOnEveryRun(t *testing.T) {
	for _, d := range shellDocs {
		a := d.render(cliFlags(newFlagSet(&invocation{})))
		b := d.render(cliFlags(newFlagSet(&invocation{})))
		if a != b {
			t.Errorf("%s: two renderings differ", d.path)
		}
	}
}
