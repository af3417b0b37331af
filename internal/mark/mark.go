package mark

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/session-starter/session-starter/internal/proc"
)

// Var is the name of the session mark in the environment.
const Var = "SESSION_STARTER_SESSION"

// ID is one session's id: 128 random bits.
type ID [16]byte

// New returns a fresh random id.
func New() (ID, error) {
	var id ID
	if _, err := rand.Read(id[:]); err != nil {
		return ID{}, fmt.Errorf("mark: %w", err)
	}
	return id, nil
}

// String is the id as the mark writes it: 32 lower-case hexadecimal
// digits.
func (id ID) String() string { return hex.EncodeToString(id[:]) }

// ErrMalformed is wrapped by Parse's error.
var ErrMalformed = errors.New("malformed session id")

// Parse reads an id as String writes it, and nothing else.
func Parse(s string) (ID, error) {
	var id ID
	if len(s) == 2*len(id) {
		if _, err := hex.Decode(id[:], []byte(s)); err == nil && id.String() == s {
			return id, nil
		}
	}
	return ID{}, fmt.Errorf("%w: %q", ErrMalformed, s)
}

// Extend returns env with id added to the mark: Var set to the inherited
// value followed by ":" and id, or to id alone where env has none (or an
// empty one). Every other entry is kept as it is, in its place; a Var
// entry that appears more than once is extended where it first appears,
// and the others are dropped, so that the Engine's environment has
// exactly one.
func Extend(env []string, id ID) []string {
	out := make([]string, 0, len(env)+1)
	prefix := Var + "="
	done := false
	for _, kv := range env {
		v, ok := strings.CutPrefix(kv, prefix)
		switch {
		case !ok:
			out = append(out, kv)
		case !done:
			if v != "" {
				v += ":"
			}
			out = append(out, prefix+v+id.String())
			done = true
		}
	}
	if !done {
		out = append(out, prefix+id.String())
	}
	return out
}

// Carries reports whether value, a mark, names id as one of its elements.
func Carries(value string, id ID) bool {
	return slices.Contains(strings.Split(value, ":"), id.String())
}

// InEnviron reports whether environ, an environment block as
// /proc/PID/environ holds it (entries each ended by a NUL), carries id in
// an entry of Var. Only whole entries count: an argument or another
// variable that holds the text does not.
func InEnviron(environ []byte, id ID) bool {
	prefix := []byte(Var + "=")
	for entry := range bytes.SplitSeq(environ, []byte{0}) {
		if v, ok := bytes.CutPrefix(entry, prefix); ok && Carries(string(v), id) {
			return true
		}
	}
	return false
}

// Found is a live process verified to carry a session's mark, with a
// pidfd of it: the caller signals it through Pidfd and closes it.
type Found struct {
	proc.Stat
	UID   int
	Pidfd int
}

// Left is a process that may carry the mark but was not verified, and is
// never signalled.
type Left struct {
	PID    int
	Reason string
}

// Reasons a process is left.
const (
	// LeftUnreadable: its environment cannot be read (another user's, a
	// process that is not dumpable).
	LeftUnreadable = "mark-unreadable"
	// LeftOtherUID: it carries the mark but belongs to another user.
	LeftOtherUID = "other-uid"
)
