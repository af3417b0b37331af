package cgroup

import (
	"slices"
	"testing"
)

func TestNameRoundTrips(t *testing.T) {
	for _, tt := range []struct {
		pid        int
		start, seq uint64
	}{{1, 0, 0}, {4194304, 18446744073709551615, 18446744073709551615}, {6821, 416251, 1}} {
		n := Name(tt.pid, tt.start, tt.seq)
		pid, start, seq, ok := ParseName(n)
		if !ok || pid != tt.pid || start != tt.start || seq != tt.seq {
			t.Errorf("ParseName(%q) = %d, %d, %d, %v; want %d, %d, %d, true", n, pid, start, seq, ok, tt.pid, tt.start, tt.seq)
		}
	}
}

func TestParseNameRejectsOtherNames(t *testing.T) {
	for _, n := range []string{
		"", "session-starter-", "session-starter-1-2", "session-starter-1-2-3-4", "session-starter--1-2-3",
		"session-starter-01-2-3", "session-starter-1-2-3 ", "session-starter-0-2-3", "session-starter-1-2-x",
		"Session-starter-1-2-3", "other-1-2-3", "session-starter-99999999-2-3", "session-starter-1-18446744073709551616-3",
		"session-starter-1-+2-3",
	} {
		if _, _, _, ok := ParseName(n); ok {
			t.Errorf("ParseName(%q) ok, want rejected", n)
		}
	}
}

func FuzzParseName(f *testing.F) {
	f.Add("session-starter-6821-416251-1")
	f.Add("session-starter-1-0-0")
	f.Fuzz(func(t *testing.T, s string) {
		pid, start, seq, ok := ParseName(s)
		if !ok {
			if pid != 0 || start != 0 || seq != 0 {
				t.Fatalf("ParseName(%q) failed with a non-zero result", s)
			}
			return
		}
		if Name(pid, start, seq) != s {
			t.Fatalf("Name(ParseName(%q)) = %q", s, Name(pid, start, seq))
		}
	})
}

// hybrid is this machine's mountinfo (cgroup v1 controllers and a cgroup2 mount at
// /sys/fs/cgroup/unified), trimmed.
const hybrid = `31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
`

func TestParseMountinfo(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		want     Mount
		err      bool
	}{
		{"hybrid", hybrid, Mount{Point: "/sys/fs/cgroup/unified", Root: "/"}, false},
		{"unified with optional fields", "29 23 0:26 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate\n", Mount{Point: "/sys/fs/cgroup", Root: "/"}, false},
		{"read-only mount", "29 23 0:26 / /sys/fs/cgroup ro,nosuid - cgroup2 cgroup2 rw\n", Mount{Point: "/sys/fs/cgroup", Root: "/", ReadOnly: true}, false},
		{"read-only super block", "29 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 ro\n", Mount{Point: "/sys/fs/cgroup", Root: "/", ReadOnly: true}, false},
		{"escaped space, bind of a subtree", `29 23 0:26 /a\040b /mnt/c\040g rw - cgroup2 none rw` + "\n", Mount{Point: "/mnt/c g", Root: "/a b"}, false},
		{"none", "31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n", Mount{}, true},
		{"hostile: separator only", " - cgroup2\n", Mount{}, true},
		{"empty", "", Mount{}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseMountinfo([]byte(tt.in))
			if (err != nil) != tt.err || got != tt.want {
				t.Fatalf("parseMountinfo() = %+v, %v; want %+v, error %v", got, err, tt.want, tt.err)
			}
		})
	}
}

func TestParseProcCgroup(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want string
		ok   bool
	}{
		{"9:name=systemd:/\n4:memory:/x\n0::/session-starter-1-2-3\n", "/session-starter-1-2-3", true},
		{"0::/\n", "/", true},
		{"1:cpu:/\n", "", false},
		{"0::\n", "", false},
		{"0::relative\n", "", false},
	} {
		if got, ok := parseProcCgroup([]byte(tt.in)); got != tt.want || ok != tt.ok {
			t.Errorf("parseProcCgroup(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParsePopulated(t *testing.T) {
	for _, tt := range []struct {
		in            string
		populated, ok bool
	}{
		{"populated 0\nfrozen 0\n", false, true},
		{"populated 1\nfrozen 0\n", true, true},
		{"frozen 0\n", false, false},
		{"populated 2\n", false, false},
		{"", false, false},
	} {
		if p, ok := parsePopulated([]byte(tt.in)); p != tt.populated || ok != tt.ok {
			t.Errorf("parsePopulated(%q) = %v, %v; want %v, %v", tt.in, p, ok, tt.populated, tt.ok)
		}
	}
}

func TestParseProcs(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []int
	}{
		{"", nil},
		{"1\n", []int{1}},
		{"6821\n6822\n4194304\n", []int{6821, 6822, 4194304}},
		// Not a PID: skipped, never read as a number it is not.
		{"0\n-5\nx\n12a\n99999999999999999999\n7\n", []int{7}},
		{"  8 \n\n9", []int{8, 9}},
	} {
		if got := parseProcs([]byte(tt.in)); !slices.Equal(got, tt.want) {
			t.Errorf("parseProcs(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
