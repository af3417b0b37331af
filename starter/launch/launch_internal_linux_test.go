package launch

import (
	"context"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/session-starter/session-starter/internal/testproc"
)

// TestReadAckLineLeavesTheEnginesBytesInThePipe: bytes that follow the
// ack in the same write are not taken by Launch.
func TestReadAckLineLeavesTheEnginesBytesInThePipe(t *testing.T) {
	const ack = `{"session_containment":1,"pid":1234,"mode":"group"}` + "\n"
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if _, err := w.Write(append([]byte(ack), "engine bytes"...)); err != nil {
		t.Fatal(err)
	}
	w.Close()
	line, err := readAckLine(context.Background(), r, time.Now().Add(testproc.TooLong))
	if err != nil || string(line) != strings.TrimSuffix(ack, "\n") {
		t.Fatalf("readAckLine() = %q, %v; want the ack without its newline", line, err)
	}
	rest, err := io.ReadAll(r)
	if err != nil || string(rest) != "engine bytes" {
		t.Fatalf("after the ack the pipe holds %q, %v; want %q", rest, err, "engine bytes")
	}
}

func TestTailBufferKeepsTheLastBytes(t *testing.T) {
	var b tailBuffer
	var all []byte
	for i := range 3000 {
		p := []byte(strconv.Itoa(i) + ",")
		all = append(all, p...)
		if n, err := b.Write(p); n != len(p) || err != nil {
			t.Fatalf("Write() = %d, %v", n, err)
		}
		if got, want := b.String(), all[max(0, len(all)-stderrTail):]; got != string(want) {
			t.Fatalf("after %d bytes String() = %d bytes, want the last %d", len(all), len(got), len(want))
		}
	}
	if len(b.buf) > 2*stderrTail {
		t.Fatalf("the buffer holds %d bytes, want at most %d", len(b.buf), 2*stderrTail)
	}
}
