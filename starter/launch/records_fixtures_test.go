package launch_test

// The fixtures of testdata/records are the one schema of the ack and the
// status records that the Go, JavaScript and Python launchers' tests all
// parse (testdata/records/README.md). These tests pin them to the Go
// types: each fixture is what the types marshal to, byte for byte, and
// each field of the types appears in some fixture.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/session-starter/session-starter/internal/exit"
	"github.com/session-starter/session-starter/starter/launch"
)

// fixtureLines returns the lines of testdata/records/name, without their
// newlines; a file with no line fails the test.
func fixtureLines(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "records", name))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil || len(lines) == 0 {
		t.Fatalf("testdata/records/%s: %d lines, %v; want some", name, len(lines), err)
	}
	return lines
}

// keyPaths returns the keys of the JSON object line in their order, the
// keys of nested objects as "outer.inner" and those of objects in arrays
// as "outer[].inner": the shape of a record.
func keyPaths(line []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	var paths []string
	if err := walkKeys(dec, "", &paths); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: more after the object", line)
	}
	return paths, nil
}

// walkKeys reads one JSON value from dec, appending the key paths of the
// objects in it below prefix.
func walkKeys(dec *json.Decoder, prefix string, paths *[]string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return err
			}
			path := prefix + k.(string)
			*paths = append(*paths, path)
			if err := walkKeys(dec, path+".", paths); err != nil {
				return err
			}
		}
		_, err = dec.Token() // }
		return err
	case json.Delim('['):
		elem := strings.TrimSuffix(prefix, ".") + "[]."
		var seen []string
		for dec.More() {
			var p []string
			if err := walkKeys(dec, elem, &p); err != nil {
				return err
			}
			for _, k := range p {
				if !slices.Contains(seen, k) {
					seen = append(seen, k)
				}
			}
		}
		*paths = append(*paths, seen...)
		_, err = dec.Token() // ]
		return err
	}
	return nil
}

// jsonKeys returns the JSON names of the fields of struct type t, nested
// struct fields and slices of structs as keyPaths spells them.
func jsonKeys(t reflect.Type, prefix string) []string {
	var keys []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		keys = append(keys, prefix+name)
		ft := f.Type
		switch {
		case ft.Kind() == reflect.Struct:
			keys = append(keys, jsonKeys(ft, prefix+name+".")...)
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			keys = append(keys, jsonKeys(ft.Elem(), prefix+name+"[].")...)
		}
	}
	return keys
}

// TestAckFixturesAreWhatAckWrites: each line of ack.jsonl parses, and Ack
// writes it again byte for byte from its pid and mode.
func TestAckFixturesAreWhatAckWrites(t *testing.T) {
	for _, line := range fixtureLines(t, "ack.jsonl") {
		pid, mode, err := launch.ParseAck([]byte(line))
		if err != nil {
			t.Errorf("ParseAck(%s) = %v", line, err)
			continue
		}
		if got := string(exit.Ack(pid, mode)); got != line+"\n" {
			t.Errorf("Ack(%d, %q) = %q, want the fixture %q", pid, mode, got, line+"\n")
		}
	}
}

// TestAckFixturesOfLaterVersionsParse: keys a later version may add to
// the ack are ignored.
func TestAckFixturesOfLaterVersionsParse(t *testing.T) {
	for _, line := range fixtureLines(t, "ack-later.jsonl") {
		if pid, mode, err := launch.ParseAck([]byte(line)); err != nil || pid != 1234 || mode == "" {
			t.Errorf("ParseAck(%s) = %d, %q, %v; want pid 1234 and the mode", line, pid, mode, err)
		}
	}
}

func TestInvalidAckFixturesAreRefused(t *testing.T) {
	for _, line := range fixtureLines(t, "ack-invalid.txt") {
		if pid, mode, err := launch.ParseAck([]byte(line)); err == nil {
			t.Errorf("ParseAck(%s) = %d, %q, nil; want an error", line, pid, mode)
		}
	}
}

// TestStatusFixturesAreWhatTheGoTypesWrite: each fixture decodes into its
// type with no field left over and marshals back byte for byte, as the
// starter writes it (json.Marshal of these types, starter/status.go); and
// ReadEnded reads each ended fixture as that record.
func TestStatusFixturesAreWhatTheGoTypesWrite(t *testing.T) {
	for _, tt := range []struct {
		file string
		new  func() any
	}{
		{"started.jsonl", func() any { return new(launch.StatusStarted) }},
		{"ended.jsonl", func() any { return new(launch.StatusEnded) }},
	} {
		for _, line := range fixtureLines(t, tt.file) {
			rec := tt.new()
			dec := json.NewDecoder(strings.NewReader(line))
			dec.DisallowUnknownFields()
			if err := dec.Decode(rec); err != nil {
				t.Errorf("%s: decode %s: %v", tt.file, line, err)
				continue
			}
			if got, err := json.Marshal(rec); err != nil || string(got) != line {
				t.Errorf("%s: json.Marshal(%+v) =\n%s, %v\nwant the fixture\n%s", tt.file, rec, got, err, line)
			}
			if ended, ok := rec.(*launch.StatusEnded); ok {
				got, err := launch.ReadEnded(strings.NewReader(line + "\n"))
				if err != nil || !reflect.DeepEqual(got, *ended) {
					t.Errorf("ReadEnded(%s) = %+v, %v; want %+v", line, got, err, *ended)
				}
			}
		}
	}
}

// TestEveryFieldOfTheRecordsHasAFixture: each JSON field of the record
// types, nested ones included, is in at least one fixture, so that the
// other launchers' tests see it.
func TestEveryFieldOfTheRecordsHasAFixture(t *testing.T) {
	for _, tt := range []struct {
		file string
		typ  reflect.Type
	}{
		{"started.jsonl", reflect.TypeFor[launch.StatusStarted]()},
		{"ended.jsonl", reflect.TypeFor[launch.StatusEnded]()},
	} {
		seen := map[string]bool{}
		for _, line := range fixtureLines(t, tt.file) {
			paths, err := keyPaths([]byte(line))
			if err != nil {
				t.Fatalf("%s: %v", tt.file, err)
			}
			for _, p := range paths {
				seen[p] = true
			}
		}
		for _, k := range jsonKeys(tt.typ, "") {
			if !seen[k] {
				t.Errorf("%s: no fixture has %s's field %q: add a record that has it", tt.file, tt.typ, k)
			}
		}
	}
}

// TestRecordsOfLaterVersionsAreRead: an unknown event is skipped and
// unknown fields are ignored, nested ones included.
func TestRecordsOfLaterVersionsAreRead(t *testing.T) {
	lines := fixtureLines(t, "later.jsonl")
	rec, err := launch.ReadEnded(strings.NewReader(strings.Join(lines, "\n") + "\n"))
	if err != nil || rec.ExitCode == nil || *rec.ExitCode != 3 || len(rec.Survivors) != 1 || rec.Survivors[0].Comm != "fuse worker" || rec.Starter.ExitStatus != 3 {
		t.Fatalf("ReadEnded(later.jsonl) = %+v, %v; want the ended record: exit code 3, one survivor", rec, err)
	}
}

// TestInvalidRecordFixturesAreRefused: a line that is not a record stops
// ReadEnded with an error, even with an ended record after it.
func TestInvalidRecordFixturesAreRefused(t *testing.T) {
	ended := fixtureLines(t, "ended.jsonl")[0]
	for _, line := range fixtureLines(t, "records-invalid.txt") {
		if rec, err := launch.ReadEnded(strings.NewReader(line + "\n" + ended + "\n")); err == nil || errors.Is(err, launch.ErrNoEnded) {
			t.Errorf("ReadEnded(%s + an ended record) = %+v, %v; want a decoding error", line, rec, err)
		}
	}
}

func TestKeyPaths(t *testing.T) {
	got, err := keyPaths([]byte(`{"a":1,"b":{"c":[1],"d":null},"e":[{"f":1},{"g":2,"f":3}],"h":[]}`))
	want := []string{"a", "b", "b.c", "b.d", "e", "e[].f", "e[].g", "h"}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("keyPaths() = %q, %v; want %q", got, err, want)
	}
	if _, err := keyPaths([]byte(`{"a":1}{}`)); err == nil {
		t.Fatal("keyPaths of two objects: want an error")
	}
}
