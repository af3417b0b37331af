package wire

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// The largest number a message may carry.
const maxNum = 1<<31 - 1

func TestEncodeDecodeRoundTripsEveryMessage(t *testing.T) {
	tests := []struct {
		name string
		word string
		nums []int
		want string
	}{
		{"ready", Ready, []int{4242}, "ready 4242\n"},
		{"go", Go, []int{1}, "go 1\n"},
		{"exec-failed", ExecFailed, []int{13}, "exec-failed 13\n"},
		{"armed", Armed, []int{maxNum}, "armed 2147483647\n"},
		{"finish", Finish, []int{32767}, "finish 32767\n"},
		{"refused", Refused, []int{2}, "refused 2\n"},
		{"two numbers", "pair", []int{7, 1000000000}, "pair 7 1000000000\n"},
		{"no number", "bare", nil, "bare\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := Encode(tt.word, tt.nums...)
			if string(line) != tt.want {
				t.Fatalf("Encode(%q, %v) = %q, want %q", tt.word, tt.nums, line, tt.want)
			}
			got, err := Decode(line, tt.word, len(tt.nums))
			if err != nil {
				t.Fatalf("Decode(%q) error = %v, want nil", line, err)
			}
			if !slices.Equal(got, tt.nums) {
				t.Fatalf("Decode(%q) = %v, want %v", line, got, tt.nums)
			}
		})
	}
}

func TestLongestEncodedMessageFitsInMaxLine(t *testing.T) {
	words := []string{Ready, Go, ExecFailed, Armed, Finish, Refused}
	for _, w := range words {
		line := Encode(w, maxNum, maxNum)
		if len(line) > MaxLine {
			t.Errorf("len(Encode(%q, max, max)) = %d, want <= %d", w, len(line), MaxLine)
		}
	}
}

func TestDecodeRejectsEverythingButTheEncodersOutput(t *testing.T) {
	long := "ready " + strings.Repeat("1", MaxLine) + "\n"
	tests := []struct {
		name string
		line string
		word string
		n    int
	}{
		{"empty", "", Ready, 1},
		{"missing newline", "ready 5", Ready, 1},
		{"carriage return", "ready 5\r\n", Ready, 1},
		{"two newlines", "ready 5\n\n", Ready, 1},
		{"newline inside", "ready\n5\n", Ready, 1},
		{"leading space", " ready 5\n", Ready, 1},
		{"trailing space", "ready 5 \n", Ready, 1},
		{"double space", "ready  5\n", Ready, 1},
		{"tab", "ready\t5\n", Ready, 1},
		{"leading zero", "ready 05\n", Ready, 1},
		{"zero", "ready 0\n", Ready, 1},
		{"plus sign", "ready +5\n", Ready, 1},
		{"minus sign", "ready -5\n", Ready, 1},
		{"hex", "ready 0x5\n", Ready, 1},
		{"underscore", "ready 1_000\n", Ready, 1},
		{"letter in number", "ready 5a\n", Ready, 1},
		{"2^31", "ready 2147483648\n", Ready, 1},
		{"eleven digits", "ready 10000000000\n", Ready, 1},
		{"beyond int64", "ready 99999999999999999999\n", Ready, 1},
		{"longer than MaxLine", long, Ready, 1},
		{"wrong word", "go 5\n", Ready, 1},
		{"word prefix", "read 5\n", Ready, 1},
		{"word in upper case", "READY 5\n", Ready, 1},
		{"missing number", "ready\n", Ready, 1},
		{"empty number", "ready \n", Ready, 1},
		{"extra number", "ready 5 6\n", Ready, 1},
		{"too few numbers", "pair 5\n", "pair", 2},
		{"trailing bytes", "ready 5x\n", Ready, 1},
		{"trailing word", "ready 5 go\n", Ready, 1},
		{"NUL", "ready 5\x00\n", Ready, 1},
		{"negative count", "ready\n", Ready, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode([]byte(tt.line), tt.word, tt.n)
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("Decode(%q, %q, %d) error = %v, want ErrMalformed", tt.line, tt.word, tt.n, err)
			}
			if got != nil {
				t.Fatalf("Decode(%q, %q, %d) = %v with an error, want nil", tt.line, tt.word, tt.n, got)
			}
		})
	}
}

func TestDecodeAcceptsALineOfExactlyMaxLineBytes(t *testing.T) {
	word := strings.Repeat("w", MaxLine-len(" 1\n"))
	line := Encode(word, 1)
	if len(line) != MaxLine {
		t.Fatalf("test line is %d bytes, want %d", len(line), MaxLine)
	}
	if _, err := Decode(line, word, 1); err != nil {
		t.Fatalf("Decode(%d-byte line) error = %v, want nil", MaxLine, err)
	}
	longer := Encode(word+"w", 1)
	if _, err := Decode(longer, word+"w", 1); !errors.Is(err, ErrMalformed) {
		t.Fatalf("Decode(%d-byte line) error = %v, want ErrMalformed", len(longer), err)
	}
}

func TestDecodeAcceptsTheLargestNumber(t *testing.T) {
	got, err := Decode([]byte("armed 2147483647\n"), Armed, 1)
	if err != nil || len(got) != 1 || got[0] != maxNum {
		t.Fatalf("Decode(armed 2^31-1) = %v, %v; want [%d], nil", got, err, maxNum)
	}
}

func TestExpectChecksTheNumber(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		word    string
		want    int
		wantErr bool
	}{
		{"match", "go 77\n", Go, 77, false},
		{"other number", "go 78\n", Go, 77, true},
		{"other word", "ready 77\n", Go, 77, true},
		{"malformed", "go 077\n", Go, 77, true},
		{"two numbers", "go 77 77\n", Go, 77, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Expect([]byte(tt.line), tt.word, tt.want)
			if tt.wantErr && !errors.Is(err, ErrMalformed) {
				t.Fatalf("Expect(%q, %q, %d) = %v, want ErrMalformed", tt.line, tt.word, tt.want, err)
			}
			if !tt.wantErr && err != nil {
				t.Fatalf("Expect(%q, %q, %d) = %v, want nil", tt.line, tt.word, tt.want, err)
			}
		})
	}
}

func TestReadLineReadsOneLineAndLeavesTheRest(t *testing.T) {
	r := strings.NewReader("ready 12\ngo 12\nrest")
	line, err := ReadLine(r)
	if err != nil || string(line) != "ready 12\n" {
		t.Fatalf("ReadLine() = %q, %v; want %q, nil", line, err, "ready 12\n")
	}
	line, err = ReadLine(r)
	if err != nil || string(line) != "go 12\n" {
		t.Fatalf("second ReadLine() = %q, %v; want %q, nil", line, err, "go 12\n")
	}
	rest, _ := io.ReadAll(r)
	if string(rest) != "rest" {
		t.Fatalf("left in reader = %q, want %q", rest, "rest")
	}
}

func TestReadLineReturnsEOFOnEmptyInput(t *testing.T) {
	line, err := ReadLine(strings.NewReader(""))
	if err != io.EOF || line != nil {
		t.Fatalf("ReadLine(empty) = %q, %v; want nil, io.EOF", line, err)
	}
}

func TestReadLineRejectsTruncatedAndOverlongInput(t *testing.T) {
	tests := []struct {
		name  string
		input string
	}{
		{"truncated", "ready 5"},
		{"one byte", "r"},
		{"MaxLine bytes without newline", strings.Repeat("a", MaxLine)},
		{"newline one past MaxLine", strings.Repeat("a", MaxLine) + "\n"},
		{"endless", strings.Repeat("a", 10*MaxLine)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := strings.NewReader(tt.input)
			line, err := ReadLine(r)
			if !errors.Is(err, ErrMalformed) || line != nil {
				t.Fatalf("ReadLine(%q) = %q, %v; want nil, ErrMalformed", tt.input, line, err)
			}
			if consumed := len(tt.input) - r.Len(); consumed > MaxLine {
				t.Fatalf("ReadLine consumed %d bytes, want <= %d", consumed, MaxLine)
			}
		})
	}
}

func TestReadLineAcceptsALineOfExactlyMaxLineBytes(t *testing.T) {
	input := strings.Repeat("a", MaxLine-1) + "\nnext"
	r := strings.NewReader(input)
	line, err := ReadLine(r)
	if err != nil || len(line) != MaxLine {
		t.Fatalf("ReadLine() = %d bytes, %v; want %d bytes, nil", len(line), err, MaxLine)
	}
	if r.Len() != len("next") {
		t.Fatalf("left in reader = %d bytes, want %d", r.Len(), len("next"))
	}
}

// A reader's error other than EOF is passed through as it is: it is not a
// malformed message but a failure of the channel.
func TestReadLinePassesReaderErrorsThrough(t *testing.T) {
	boom := errors.New("boom")
	for _, tt := range []struct {
		name string
		r    io.Reader
	}{
		{"at start", iotest.ErrReader(boom)},
		{"inside a line", io.MultiReader(strings.NewReader("rea"), iotest.ErrReader(boom))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			line, err := ReadLine(tt.r)
			if !errors.Is(err, boom) || line != nil {
				t.Fatalf("ReadLine() = %q, %v; want nil, %v", line, err, boom)
			}
		})
	}
}

// A reader may return its last byte together with io.EOF.
func TestReadLineKeepsAByteDeliveredWithEOF(t *testing.T) {
	line, err := ReadLine(iotest.DataErrReader(strings.NewReader("go 3\n")))
	if err != nil || string(line) != "go 3\n" {
		t.Fatalf("ReadLine(DataErrReader) = %q, %v; want %q, nil", line, err, "go 3\n")
	}
}

// zeroReader returns (0, nil) forever, which io.Reader discourages; ReadLine
// must not spin on it.
type zeroReader struct{ calls int }

func (z *zeroReader) Read([]byte) (int, error) {
	z.calls++
	return 0, nil
}

func TestReadLineStopsOnAReaderThatReturnsNothing(t *testing.T) {
	z := &zeroReader{}
	line, err := ReadLine(z)
	if err != io.EOF || line != nil {
		t.Fatalf("ReadLine(zero reader) = %q, %v; want nil, io.EOF", line, err)
	}
	if z.calls != 1 {
		t.Fatalf("ReadLine called Read %d times, want 1", z.calls)
	}
}

func FuzzDecode(f *testing.F) {
	seeds := []struct {
		line string
		word string
		n    uint8
	}{
		{"ready 1\n", Ready, 1},
		{"armed 2147483647\n", Armed, 1},
		{"pair 1 2\n", "pair", 2},
		{"ready 2147483648\n", Ready, 1},
		{"ready 01\n", Ready, 1},
		{"ready +1\n", Ready, 1},
		{"ready  1\n", Ready, 1},
		{"\n", "", 0},
	}
	for _, s := range seeds {
		f.Add([]byte(s.line), s.word, s.n)
	}
	f.Fuzz(func(t *testing.T, line []byte, word string, n uint8) {
		count := int(n % 4)
		nums, err := Decode(line, word, count)
		if err != nil {
			if nums != nil {
				t.Fatalf("Decode(%q, %q, %d) = %v with error %v, want nil", line, word, count, nums, err)
			}
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("Decode(%q, %q, %d) error = %v, want ErrMalformed", line, word, count, err)
			}
			return
		}
		if len(nums) != count {
			t.Fatalf("Decode(%q, %q, %d) gave %d numbers", line, word, count, len(nums))
		}
		for _, v := range nums {
			if v < 1 || v > maxNum {
				t.Fatalf("Decode(%q) gave number %d, want 1..2^31-1", line, v)
			}
		}
		if enc := Encode(word, nums...); !bytes.Equal(enc, line) {
			t.Fatalf("Encode(Decode(%q)) = %q, want the input", line, enc)
		}
	})
}

func FuzzReadLine(f *testing.F) {
	f.Add([]byte("ready 1\n"))
	f.Add([]byte("ready 1\ngo 1\n"))
	f.Add([]byte(""))
	f.Add([]byte("\n"))
	f.Add([]byte("truncated"))
	f.Add([]byte(strings.Repeat("x", MaxLine) + "\n"))
	f.Fuzz(func(t *testing.T, input []byte) {
		r := bytes.NewReader(input)
		line, err := ReadLine(r)
		consumed := len(input) - r.Len()
		if consumed > MaxLine {
			t.Fatalf("ReadLine consumed %d bytes, want <= %d", consumed, MaxLine)
		}
		if err != nil {
			if line != nil {
				t.Fatalf("ReadLine(%q) = %q with error %v, want nil", input, line, err)
			}
			if len(input) == 0 && err != io.EOF {
				t.Fatalf("ReadLine(empty) error = %v, want io.EOF", err)
			}
			if len(input) > 0 && !errors.Is(err, ErrMalformed) {
				t.Fatalf("ReadLine(%q) error = %v, want ErrMalformed", input, err)
			}
			if i := bytes.IndexByte(input, '\n'); i >= 0 && i < MaxLine {
				t.Fatalf("ReadLine(%q) error = %v, but a line of %d bytes was there", input, err, i+1)
			}
			return
		}
		if len(line) == 0 || len(line) > MaxLine || line[len(line)-1] != '\n' {
			t.Fatalf("ReadLine(%q) = %q, want one line of at most %d bytes", input, line, MaxLine)
		}
		if bytes.IndexByte(line, '\n') != len(line)-1 {
			t.Fatalf("ReadLine(%q) = %q, holds more than one line", input, line)
		}
		if consumed != len(line) || !bytes.Equal(line, input[:len(line)]) {
			t.Fatalf("ReadLine(%q) = %q after consuming %d bytes, want the prefix up to the first newline", input, line, consumed)
		}
	})
}
