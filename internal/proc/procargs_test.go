package proc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

// procargs builds a KERN_PROCARGS2 blob as XNU lays it out: argc, the
// executable path, NUL padding to a multiple of 8, argv, the environment,
// then the apple strings.
func procargs(argc int, path string, strs ...string) []byte {
	var b bytes.Buffer
	_ = binary.Write(&b, binary.LittleEndian, int32(argc))
	b.WriteString(path)
	b.WriteByte(0)
	for b.Len()%8 != 0 {
		b.WriteByte(0)
	}
	for _, s := range strs {
		b.WriteString(s)
		b.WriteByte(0)
	}
	return b.Bytes()
}

const testMark = "SESSION_STARTER_SESSION=0123456789abcdef0123456789abcdef"

func entries(env []byte) []string {
	return strings.Split(strings.TrimSuffix(string(env), "\x00"), "\x00")
}

func TestTheEnvironmentOfProcArgsStartsAfterArgvCounted(t *testing.T) {
	b := procargs(3, "/bin/sleep", "sleep", "-x", "300", "HOME=/Users/a", testMark, "executable_path=/bin/sleep")
	env, err := EnvironOfProcArgs(b)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := entries(env), []string{"HOME=/Users/a", testMark, "executable_path=/bin/sleep"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("environment %q, want %q", got, want)
	}
}

// TestAnArgumentThatLooksLikeTheMarkIsNotEnvironment: `env MARK=… cmd`
// run as argv leaves the text in argv, which a parser that took the first
// NAME=value string for the environment's start would return.
func TestAnArgumentThatLooksLikeTheMarkIsNotEnvironment(t *testing.T) {
	for name, b := range map[string][]byte{
		"last argument":  procargs(3, "/usr/bin/env", "env", "-i", testMark, "HOME=/Users/a"),
		"only argument":  procargs(2, "/usr/bin/env", "env", testMark),
		"no environment": procargs(4, "/usr/bin/env", "env", testMark, "sleep", "300"),
		"argument twice": procargs(3, "/bin/sh", "sh", testMark, testMark, "PATH=/bin"),
	} {
		env, err := EnvironOfProcArgs(b)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if bytes.Contains(env, []byte(testMark)) {
			t.Errorf("%s: environment %q holds the argument", name, entries(env))
		}
	}
}

func TestAnEmptyFirstArgumentOnlyShortensTheEnvironment(t *testing.T) {
	b := procargs(2, "/bin/sh", "", testMark, "HOME=/Users/a", "PATH=/bin")
	env, err := EnvironOfProcArgs(b)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(env, []byte(testMark)) {
		t.Fatalf("environment %q holds argv[1]", entries(env))
	}
}

func TestATruncatedProcArgsIsMalformed(t *testing.T) {
	whole := procargs(2, "/bin/sleep", "sleep", "300", testMark)
	for name, b := range map[string][]byte{
		"empty":                  nil,
		"half an argc":           whole[:2],
		"path without its NUL":   whole[:8],
		"argv cut":               procargs(2, "/bin/sleep", "sleep")[:18],
		"argc beyond the string": procargs(5, "/bin/sleep", "sleep", "300", testMark),
		"negative argc":          procargs(-1, "/bin/sleep", testMark),
		"argv without its NUL":   whole[:len(whole)-len(testMark)-3],
	} {
		env, err := EnvironOfProcArgs(b)
		if !errors.Is(err, ErrMalformed) || env != nil {
			t.Errorf("%s: EnvironOfProcArgs = %q, %v; want ErrMalformed and nothing", name, env, err)
		}
	}
}

// FuzzEnvironOfProcArgs: whatever the blob, the environment returned is
// a suffix of it, after at least argc NULs past the path.
func FuzzEnvironOfProcArgs(f *testing.F) {
	f.Add(procargs(2, "/bin/sleep", "sleep", "300", testMark))
	f.Add(procargs(1, "", testMark))
	f.Fuzz(func(t *testing.T, b []byte) {
		env, err := EnvironOfProcArgs(b)
		if err != nil {
			if env != nil {
				t.Fatalf("environment %q with error %v", env, err)
			}
			return
		}
		if !bytes.HasSuffix(b, env) {
			t.Fatalf("environment %q is not the blob's end", env)
		}
		argc := int(binary.LittleEndian.Uint32(b))
		if nuls := bytes.Count(b[4:len(b)-len(env)], []byte{0}); nuls < argc+1 {
			t.Fatalf("environment after %d NULs, argc %d", nuls, argc)
		}
	})
}
