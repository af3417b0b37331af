package proc

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// statLine builds a /proc/PID/stat line with all 52 fields of Linux 6.x.
// Fields are numbered as in proc(5); over replaces fields 3 and later.
func statLine(pid, comm string, over map[int]string) string {
	const last = 52
	f := make([]string, 0, last)
	f = append(f, pid, "("+comm+")")
	for n := 3; n <= last; n++ {
		v, ok := over[n]
		switch {
		case ok:
		case n == 3:
			v = "S"
		case n == 20: // num_threads
			v = "1"
		default:
			v = strconv.Itoa(n * 10)
		}
		f = append(f, v)
	}
	return strings.Join(f, " ") + "\n"
}

func TestParseStatReadsCapturedLines(t *testing.T) {
	tests := []struct {
		file string
		want Stat
	}{
		{"stat-cat.txt", Stat{PID: 9485, Comm: "cat", State: 'R', PPID: 9480, Pgrp: 9480, Session: 6388, NumThreads: 1, StartTime: 68744}},
		{"stat-hostile-comm.txt", Stat{PID: 9489, Comm: "a) b (c", State: 'S', PPID: 9488, Pgrp: 9480, Session: 6388, NumThreads: 1, StartTime: 68745}},
		{"stat-kthreadd.txt", Stat{PID: 2, Comm: "kthreadd", State: 'S', NumThreads: 1, StartTime: 30}},
		{"stat-pid1.txt", Stat{PID: 1, Comm: "process_api", State: 'S', NumThreads: 13, StartTime: 30}},
		{"stat-zombie.txt", Stat{PID: 9526, Comm: "perl", State: 'Z', PPID: 9525, Pgrp: 9522, Session: 6388, NumThreads: 1, StartTime: 69000}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := ParseStat(b)
			if err != nil {
				t.Fatalf("ParseStat(%s) error = %v", tt.file, err)
			}
			if got != tt.want {
				t.Fatalf("ParseStat(%s) = %+v, want %+v", tt.file, got, tt.want)
			}
		})
	}
}

// A command name is whatever the program's file was called (up to 15
// bytes): it may hold anything but NUL, and the line is split at its last
// ')'.
func TestParseStatTakesAnyCommandName(t *testing.T) {
	tests := []struct {
		name string
		comm string
	}{
		{"spaces", "a b  c"},
		{"closing parenthesis", "a) S 1 2 3"},
		{"opening parenthesis", "a(b"},
		{"both, as a forged field list", ") R 1 1 1 1 ("},
		{"ends in parenthesis", "x)"},
		{"only parentheses", ")()("},
		{"newline", "a\nb"},
		{"empty", ""},
		{"digits", "12345"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := statLine("4321", tt.comm, map[int]string{3: "D", 4: "11", 5: "22", 6: "33", 20: "4", 22: "987654321"})
			got, err := ParseStat([]byte(line))
			if err != nil {
				t.Fatalf("ParseStat(%q) error = %v", line, err)
			}
			want := Stat{PID: 4321, Comm: tt.comm, State: 'D', PPID: 11, Pgrp: 22, Session: 33, NumThreads: 4, StartTime: 987654321}
			if got != want {
				t.Fatalf("ParseStat(%q) = %+v, want %+v", line, got, want)
			}
		})
	}
}

func TestParseStatRejectsMalformedLines(t *testing.T) {
	full := statLine("77", "sh", nil)
	closing := strings.LastIndexByte(full, ')')
	tests := []struct {
		name string
		line string
	}{
		{"empty", ""},
		{"only pid", "77"},
		{"no closing parenthesis", "77 (sh S 1 2 3"},
		{"no opening parenthesis", "77 sh) S 1 2 3"},
		{"no pid", statLine("", "sh", nil)},
		{"pid zero", statLine("0", "sh", nil)},
		{"negative pid", statLine("-7", "sh", nil)},
		{"pid not a number", statLine("7a", "sh", nil)},
		{"cut after name", full[:closing+1]},
		{"cut after state", full[:closing+3]},
		{"cut before starttime", strings.Join(strings.Fields(full)[:21], " ")},
		{"state of two letters", statLine("77", "sh", map[int]string{3: "SS"})},
		{"ppid not a number", statLine("77", "sh", map[int]string{4: "x"})},
		{"pgrp not a number", statLine("77", "sh", map[int]string{5: "1.5"})},
		{"session not a number", statLine("77", "sh", map[int]string{6: "s1"})},
		{"num_threads not a number", statLine("77", "sh", map[int]string{20: "many"})},
		{"starttime negative", statLine("77", "sh", map[int]string{22: "-1"})},
		{"starttime beyond uint64", statLine("77", "sh", map[int]string{22: "18446744073709551616"})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseStat([]byte(tt.line))
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("ParseStat(%q) error = %v, want ErrMalformed", tt.line, err)
			}
			if got != (Stat{}) {
				t.Fatalf("ParseStat(%q) = %+v with an error, want a zero Stat", tt.line, got)
			}
		})
	}
}

// A zombie leader whose other threads still run shows Z with more than
// one thread; only a single-threaded zombie and a dead
// task have stopped running code.
func TestLiveCountsEverythingButFinishedZombiesAndDeadTasks(t *testing.T) {
	tests := []struct {
		state   byte
		threads int
		want    bool
	}{
		{'Z', 1, false},
		{'Z', 0, false},
		{'Z', 2, true},
		{'X', 1, false},
		{'x', 1, false},
		{'R', 1, true},
		{'S', 1, true},
		{'D', 1, true},
		{'T', 1, true},
		{'t', 1, true},
		{'I', 1, true},
	}
	for _, tt := range tests {
		s := Stat{PID: 10, State: tt.state, NumThreads: tt.threads}
		if got := s.Live(); got != tt.want {
			t.Errorf("Stat{State: %q, NumThreads: %d}.Live() = %v, want %v", tt.state, tt.threads, got, tt.want)
		}
	}
}

func FuzzParseStat(f *testing.F) {
	for _, name := range []string{"stat-cat.txt", "stat-hostile-comm.txt", "stat-kthreadd.txt", "stat-pid1.txt", "stat-zombie.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(statLine("5", ") R 1 1 1 (", nil)))
	f.Add([]byte("5 () "))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := ParseStat(b)
		if err != nil {
			if got != (Stat{}) {
				t.Fatalf("ParseStat(%q) = %+v with error %v, want a zero Stat", b, got, err)
			}
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("ParseStat(%q) error = %v, want ErrMalformed", b, err)
			}
			return
		}
		if got.PID <= 0 {
			t.Fatalf("ParseStat(%q).PID = %d, want > 0", b, got.PID)
		}
		open, closing := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
		if open < 0 || closing < open || got.Comm != string(b[open+1:closing]) {
			t.Fatalf("ParseStat(%q).Comm = %q, want the bytes between the first '(' and the last ')'", b, got.Comm)
		}
		if f := bytes.Fields(b[closing+1:]); len(f) == 0 || len(f[0]) != 1 || got.State != f[0][0] {
			t.Fatalf("ParseStat(%q).State = %q, want the one-byte field after the last ')'", b, got.State)
		}
	})
}
