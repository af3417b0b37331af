package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"
)

// docPackages are the non-internal packages whose doc.go is measured.
var docPackages = []string{"gate", "guard", "starter", "starter/launch", "starter/contain", "starter/mcp"}

// The targets.
const (
	maxReadmeLines   = 350
	maxManualLines   = 700
	maxHelpLines     = 60
	maxSentenceWords = 25
)

// row is one measure of the table.
type row struct {
	what   string
	value  float64
	target float64
	// integer: value counts lines.
	integer bool
	// note says more: a package doc's sentences and its longest one.
	note string
	err  error
}

func (r row) over() bool { return r.err == nil && r.value > r.target }

func main() {
	check := flag.Bool("check", false, "exit 1 when a measure is over its target")
	goCmd := flag.String("go", "go", "the go command, which runs go doc")
	helpCmd := flag.String("help-cmd", "go run ./cmd/session-starter --help",
		"the command whose output is --help's (split at spaces)")
	flag.Parse()
	rows := measure(".", *goCmd, strings.Fields(*helpCmd))
	os.Exit(report(os.Stdout, rows, *check))
}

// measure takes every measure of the repository at root.
func measure(root, goCmd string, helpCmd []string) []row {
	rows := []row{
		linesOf("README.md lines", maxReadmeLines, func() ([]byte, error) {
			return os.ReadFile(filepath.Join(root, "README.md"))
		}),
		linesOf("manual lines (go doc -all ./cmd/session-starter)", maxManualLines, func() ([]byte, error) {
			return output(root, goCmd, "doc", "-all", "./cmd/session-starter")
		}),
		linesOf("--help lines", maxHelpLines, func() ([]byte, error) {
			return output(root, helpCmd...)
		}),
	}
	for _, pkg := range docPackages {
		rows = append(rows, sentencesOf(root, pkg))
	}
	return rows
}

// linesOf is a row of the lines of what read returns, as wc -l counts
// them: its newlines.
func linesOf(what string, target int, read func() ([]byte, error)) row {
	b, err := read()
	return row{what: what, value: float64(bytes.Count(b, []byte("\n"))), integer: true, target: float64(target), err: err}
}

// output runs a command in dir and returns its standard output.
func output(dir string, argv ...string) ([]byte, error) {
	if len(argv) == 0 {
		return nil, errors.New("no command")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %v: %s", strings.Join(argv, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// sentencesOf is the row of the mean sentence length of pkg's doc.go.
func sentencesOf(root, pkg string) row {
	path := filepath.Join(root, pkg, "doc.go")
	src, err := os.ReadFile(path)
	return sentencesIn(pkg, path, src, err)
}

// sentencesIn is sentencesOf of pkg's doc.go read from path: src, or
// the error of its read.
func sentencesIn(pkg, path string, src []byte, err error) row {
	r := row{what: pkg + "/doc.go mean sentence (words)", target: maxSentenceWords}
	if err != nil {
		r.err = err
		return r
	}
	f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		r.err = err
		return r
	}
	if f.Doc == nil {
		r.err = fmt.Errorf("%s: no package doc", path)
		return r
	}
	all := sentences(f.Doc.Text())
	if len(all) == 0 {
		r.err = fmt.Errorf("%s: no sentence in the package doc", path)
		return r
	}
	total := 0
	var longest sentence
	for _, s := range all {
		total += len(s)
		if len(s) > len(longest) {
			longest = s
		}
	}
	r.value = float64(total) / float64(len(all))
	r.note = fmt.Sprintf("%d sentences; the longest, %d words: %q…", len(all), len(longest), strings.Join(longest[:min(6, len(longest))], " "))
	return r
}

// report prints the table and returns the exit status: with check, 1
// when a measure is over its target; 2 when one could not be taken.
func report(w io.Writer, rows []row, check bool) int {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "measure\tvalue\ttarget\t\t")
	status := 0
	for _, r := range rows {
		switch {
		case r.err != nil:
			fmt.Fprintf(tw, "%s\t-\t≤%g\tERROR\t%v\n", r.what, r.target, r.err)
			status = 2
		default:
			verdict := "ok"
			if r.over() {
				verdict = "OVER"
				if check && status == 0 {
					status = 1
				}
			}
			value := fmt.Sprintf("%6.1f", r.value)
			if r.integer {
				value = fmt.Sprintf("%4d", int(r.value))
			}
			fmt.Fprintf(tw, "%s\t%s\t≤%g\t%s\t%s\n", r.what, value, r.target, verdict, r.note)
		}
	}
	tw.Flush()
	return status
}
