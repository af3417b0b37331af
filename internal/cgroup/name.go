package cgroup

import (
	"bytes"
	"errors"
	"slices"
	"strconv"
	"strings"
)

// Prefix starts the name of every session cgroup.
const Prefix = "session-starter-"

// Name is the name of a session cgroup: Prefix, the starter's PID, its
// start time in clock ticks after boot, and a sequence number that tells
// the sessions of one process apart.
func Name(pid int, start uint64, seq uint64) string {
	return Prefix + strconv.Itoa(pid) + "-" + strconv.FormatUint(start, 10) + "-" + strconv.FormatUint(seq, 10)
}

// ParseName is the inverse of [Name]; ok is false for any other name.
func ParseName(name string) (pid int, start uint64, seq uint64, ok bool) {
	rest, found := strings.CutPrefix(name, Prefix)
	if !found {
		return 0, 0, 0, false
	}
	f := strings.Split(rest, "-")
	if len(f) != 3 {
		return 0, 0, 0, false
	}
	p, err1 := strconv.Atoi(f[0])
	st, err2 := strconv.ParseUint(f[1], 10, 64)
	sq, err3 := strconv.ParseUint(f[2], 10, 64)
	// Name gives the name back only for the digits it writes: no sign, no
	// leading zero.
	if err1 != nil || err2 != nil || err3 != nil || p <= 0 || p > 1<<22 || Name(p, st, sq) != name {
		return 0, 0, 0, false
	}
	return p, st, sq, true
}

// Mount is a cgroup2 mount: where it is mounted, which directory of the
// hierarchy is its root, and whether it is read-only.
type Mount struct {
	Point    string
	Root     string
	ReadOnly bool
}

var errNoCgroup2 = errors.New("no cgroup2 mount in /proc/self/mountinfo")

// parseMountinfo finds the first cgroup2 mount in a mountinfo file
// (proc(5)): fields 4 and 5 are the root and the mount point, field 6
// the per-mount options; after the " - " separator come the file system
// type and the super options. Octal escapes (\040) are decoded.
func parseMountinfo(b []byte) (Mount, error) {
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		pre, post, ok := bytes.Cut(line, []byte(" - "))
		if !ok {
			continue
		}
		pf := bytes.Fields(pre)
		qf := bytes.Fields(post)
		if len(pf) < 6 || len(qf) < 1 || string(qf[0]) != "cgroup2" {
			continue
		}
		ro := readOnly(pf[5]) || len(qf) >= 3 && readOnly(qf[2])
		return Mount{Root: unescape(string(pf[3])), Point: unescape(string(pf[4])), ReadOnly: ro}, nil
	}
	return Mount{}, errNoCgroup2
}

// readOnly reports whether the comma-separated mount options opts
// have "ro".
func readOnly(opts []byte) bool { return slices.Contains(strings.Split(string(opts), ","), "ro") }

// unescape decodes the octal escapes of mountinfo fields: the kernel
// escapes a space, a tab, a newline and a backslash, and nothing else.
var unescape = strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`).Replace

// parseProcCgroup returns the cgroup v2 path from a /proc/PID/cgroup file:
// the "0::" line (cgroups(7)).
func parseProcCgroup(b []byte) (string, bool) {
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		if p, ok := bytes.CutPrefix(line, []byte("0::")); ok && len(p) > 0 && p[0] == '/' {
			return string(p), true
		}
	}
	return "", false
}

// parsePopulated reads the populated key of cgroup.events: 0 or 1.
func parsePopulated(b []byte) (populated, ok bool) {
	n, ok := flatKeyed(b, "populated")
	return n == 1, ok && (n == 0 || n == 1)
}

// parseProcs reads a cgroup.procs file: one PID a line.
func parseProcs(b []byte) []int {
	var out []int
	for f := range bytes.FieldsSeq(b) {
		if pid, err := strconv.Atoi(string(f)); err == nil && pid > 0 {
			out = append(out, pid)
		}
	}
	return out
}
