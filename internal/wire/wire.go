package wire

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// MaxLine bounds one message, newline included. The longest message is a
// word and two numbers; 64 bytes leave room without letting a hostile peer
// make a reader buffer much.
const MaxLine = 64

// ErrMalformed is wrapped by every decoding error.
var ErrMalformed = errors.New("malformed message")

// Words of the messages.
const (
	// Ready is sent by the gate once it has checked that it leads its own
	// process group: "ready PID".
	Ready = "ready"
	// Go is sent by the starter to let the gate execute the Engine: "go PID".
	Go = "go"
	// ExecFailed is sent by the gate when execve failed: "exec-failed ERRNO".
	ExecFailed = "exec-failed"
	// Armed is sent by the guard once it watches the group: "armed PGID".
	Armed = "armed"
	// Finish is sent by the starter when the session ended and the guard
	// must exit without signalling: "finish PGID".
	Finish = "finish"
	// Refused is sent by a guard that will not arm: "refused CODE".
	Refused = "refused"
)

// Encode returns the line for word and its numbers.
func Encode(word string, nums ...int) []byte {
	b := []byte(word)
	for _, n := range nums {
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(n), 10)
	}
	return append(b, '\n')
}

// Decode parses one complete line (with its newline) as word followed by
// exactly n positive numbers in canonical form.
func Decode(line []byte, word string, n int) ([]int, error) {
	if len(line) > MaxLine || len(line) == 0 || line[len(line)-1] != '\n' {
		return nil, fmt.Errorf("%w: not one line", ErrMalformed)
	}
	fields := bytes.Split(line[:len(line)-1], []byte(" "))
	if len(fields) != n+1 || string(fields[0]) != word {
		return nil, fmt.Errorf("%w: want %q with %d numbers", ErrMalformed, word, n)
	}
	nums := make([]int, n)
	for i, f := range fields[1:] {
		// Canonical: what Itoa writes back, so no sign and no leading zero.
		v, err := strconv.Atoi(string(f))
		if err != nil || v < 1 || v > 1<<31-1 || strconv.Itoa(v) != string(f) {
			return nil, fmt.Errorf("%w: number %q", ErrMalformed, f)
		}
		nums[i] = v
	}
	return nums, nil
}

// Expect decodes line as word with one number and checks that the number
// is want.
func Expect(line []byte, word string, want int) error {
	nums, err := Decode(line, word, 1)
	if err != nil {
		return err
	}
	if nums[0] != want {
		return fmt.Errorf("%w: %s %d, want %d", ErrMalformed, word, nums[0], want)
	}
	return nil
}

// ReadLine reads one message from r a byte at a time, so that nothing
// after the newline is consumed. It returns [io.EOF] when r ends before
// the first byte, and an error wrapping [ErrMalformed] when r ends inside
// a line or the line grows past [MaxLine].
func ReadLine(r io.Reader) ([]byte, error) {
	line := make([]byte, 0, MaxLine)
	var b [1]byte
	for len(line) < MaxLine {
		n, err := r.Read(b[:])
		if n == 1 {
			line = append(line, b[0])
			if b[0] == '\n' {
				return line, nil
			}
			continue
		}
		if errors.Is(err, io.EOF) || (err == nil && n == 0) {
			if len(line) == 0 {
				return nil, io.EOF
			}
			return nil, fmt.Errorf("%w: truncated", ErrMalformed)
		}
		if err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("%w: longer than %d bytes", ErrMalformed, MaxLine)
}
