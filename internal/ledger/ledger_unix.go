//go:build darwin || freebsd || linux

package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/session-starter/session-starter/internal/dockercli"
	"github.com/session-starter/session-starter/internal/sys"
)

// Version is the version of the records written. A record of version 1
// (which names no namespace) is read, reported and never acted on; one of
// another version is refused.
const Version = 2

// Process is one process of a session, as the record names it.
type Process struct {
	PID   int   `json:"pid"`
	Token Token `json:"token"`
}

// Token names one process beyond its PID, which the kernel hands out
// again, with the record's boot id.
//
// On Linux: its start in clock ticks since boot (/proc/PID/stat field 22;
// never converted to wall time, which moves when the clock is set) and,
// where pidfds live in pidfs (Linux 6.9, on 64-bit kernels), the inode
// number of a pidfd of it, which every pidfd of that process shares and
// no other process has: compared where both have one.
//
// On macOS: its 64-bit unique id (PROC_PIDUNIQIDENTIFIERINFO), which no
// other process of the boot ever has, compared alone; Start is its start
// time (microseconds since the epoch), kept for the record. On FreeBSD:
// its start, ki_start (microseconds since the epoch), with the PID.
type Token struct {
	Start  uint64 `json:"start"`
	Pidfs  uint64 `json:"pidfs,omitempty"`
	Unique uint64 `json:"unique,omitempty"`
}

// TokenOf returns pid's token, as [TokenOfPidfd] without a descriptor.
func TokenOf(pid int) (Token, error) { return TokenOfPidfd(pid, -1) }

// errMismatch is open's error for a live process at the PID whose
// identity is not the token's: the PID was given to another process.
var errMismatch = errors.New("ledger: token-mismatch")

// Gone reports whether the process pid of token tok is shown gone: no
// live process has the PID, or the one that has it is of another
// identity (reused then: the PID was handed to a stranger, to be
// reported, never signalled). An error is that it cannot be told (short
// of descriptors, say): never taken for gone, so that a reclaim cannot
// end a live session on a failed look.
func Gone(pid int, tok Token) (gone, reused bool, err error) {
	switch err := look(pid, tok); {
	case err == nil:
		return false, false, nil
	case errors.Is(err, errMismatch):
		return true, true, nil
	case errors.Is(err, sys.ErrGone):
		return true, false, nil
	default:
		return false, false, fmt.Errorf("ledger: pid %d: %w", pid, err)
	}
}

// Cgroup is the session cgroup, as the record names it.
type Cgroup struct {
	Dir string `json:"dir"` // its directory, absolute
	ID  uint64 `json:"id"`  // its inode number, checked before use
}

// Record is what the ledger holds of one live session.
type Record struct {
	Version int     `json:"version"`
	BootID  string  `json:"boot_id"`
	Session string  `json:"session"` // the session's id in its mark
	UID     int     `json:"uid"`
	Mode    string  `json:"mode"`
	Created string  `json:"created"` // RFC 3339
	Starter Process `json:"starter"`
	Guard   Process `json:"guard"`
	Engine  Process `json:"engine"` // its start is the session's
	PGID    int     `json:"pgid"`
	Cgroup  *Cgroup `json:"cgroup,omitempty"`
	// NS names the namespaces the numbers above are relative to (Linux;
	// nil elsewhere, and in a record of version 1).
	NS *Namespaces `json:"ns,omitempty"`
	// SeenFrom are the PID namespaces from which a reclaim saw the
	// record's PID namespace's init alive: its ancestors, which see every
	// process of it (Linux).
	SeenFrom []PIDNamespace `json:"seen_from,omitempty"`
	// GuardEnd, when set, is what the guard's end of the session came to
	// after the starter was gone, when it left something: the end's
	// account and its time, written into the record by the guard
	// ([NoteEnd]), whose standard error nobody reads.
	GuardEnd string `json:"guard_end,omitempty"`
	// Containers, when set, reaches the engine that runs the session's
	// containers (--containers): the guard and a reclaim have it stop
	// them, and remove those made with --rm.
	Containers *dockercli.CLI `json:"containers,omitempty"`
}

// EnvDir names a directory to use instead of the default, for tests and
// for setups whose runtime directory is elsewhere; it passes the same
// checks.
const EnvDir = "SESSION_STARTER_LEDGER_DIR"

// OpenDir returns the ledger's directory for this user, made if missing
// (0700), with a descriptor of it (read-only, close-on-exec): the
// directory is $SESSION_STARTER_LEDGER_DIR if set; for root rootDir
// (/run/session-starter on Linux, /var/run/session-starter on macOS and
// FreeBSD); $XDG_RUNTIME_DIR/session-starter; else
// /tmp/session-starter-UID.
// It must be a directory, not a symlink, owned by this user and not open
// to group or others, as tmux checks its socket directory: it is opened
// without following a symlink, and its owner and mode are checked on the
// descriptor. A relative path from either variable turns the ledger off:
// it would name another directory from every working directory, and a
// reclaim would not read the one a session wrote. The guard gets the
// descriptor at arming and removes a record relative to it, never
// through a path resolved later.
func OpenDir() (string, int, error) {
	uid := os.Getuid()
	dir := os.Getenv(EnvDir)
	from := EnvDir
	switch {
	case dir != "":
	case uid == 0:
		dir = rootDir
	case os.Getenv("XDG_RUNTIME_DIR") != "":
		from = "XDG_RUNTIME_DIR"
		dir = filepath.Join(os.Getenv(from), "session-starter")
	default:
		dir = "/tmp/session-starter-" + strconv.Itoa(uid)
	}
	if !filepath.IsAbs(dir) {
		return "", -1, fmt.Errorf("%w: %s=%s is not an absolute path", ErrOff, from, os.Getenv(from))
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", -1, fmt.Errorf("%w: %w", ErrOff, err)
	}
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		// A symlink is refused as ENOTDIR or ELOOP: name it.
		if fi, lerr := os.Lstat(dir); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return "", -1, fmt.Errorf("%w: %s is a symlink", ErrOff, dir)
		}
		return "", -1, fmt.Errorf("%w: %s: %w", ErrOff, dir, err)
	}
	var st syscall.Stat_t
	err = syscall.Fstat(fd, &st)
	switch {
	case err != nil:
	case int(st.Uid) != uid:
		err = fmt.Errorf("%s belongs to another user", dir)
	case st.Mode&0o077 != 0:
		err = fmt.Errorf("%s is open to others (mode %#o)", dir, st.Mode&0o777)
	}
	if err != nil {
		_ = syscall.Close(fd)
		return "", -1, fmt.Errorf("%w: %w", ErrOff, err)
	}
	return dir, fd, nil
}

// Write writes r into the directory of the descriptor dir (from
// [OpenDir]) atomically, as [NoteEnd] does.
func Write(dir int, r Record) error { return writeAt(dir, FileName(r.Session), r) }

// writeAt writes r as the file name in the directory of the descriptor
// dir: a new temporary file (see writeTemp) renamed over name, so that a
// reader sees the whole record or none, all relative to dir, never
// through a path.
func writeAt(dir int, name string, r Record) error {
	tmp, err := writeTemp(dir, r)
	if err == nil {
		if err = sys.Renameat(dir, tmp, name); err != nil {
			_ = sys.Unlinkat(dir, tmp, 0)
		}
	}
	if err != nil {
		return fmt.Errorf("ledger: %s: %w", name, err)
	}
	return nil
}

// writeTemp writes r, as JSON and a newline, into a new temporary file
// of the directory dir (".tmp-", 0600, which Read skips) and returns its
// name.
func writeTemp(dir int, r Record) (string, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return "", err
	}
	var tmp string
	var fd int
	for range 16 { // a name a writer SIGKILLed while writing may hold
		tmp = fmt.Sprintf(".tmp-%d-%x", os.Getpid(), rand.Uint64())
		if fd, err = sys.CreateAt(dir, tmp, 0o600); !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	if err != nil {
		return "", err
	}
	w := os.NewFile(uintptr(fd), tmp)
	_, err = w.Write(append(b, '\n'))
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = sys.Unlinkat(dir, tmp, 0)
		return "", err
	}
	return tmp, nil
}

// maxRecord bounds what NoteEnd reads of a record: one is a few hundred
// bytes, and a larger file is not one this binary wrote.
const maxRecord = 64 << 10

// NoteEnd sets the GuardEnd of the record named name in the directory of
// the descriptor dir, atomically (a temporary file, 0600, renamed over
// it), all relative to dir, never through a path. The record must be a
// whole record (as Read takes one) and this user's, named by its
// session, a private regular file (opened without following a link):
// anything else is left as it is, and the error says why.
func NoteEnd(dir int, name, text string) error {
	r, _, err := readAt(dir, name)
	if err != nil {
		return err
	}
	r.GuardEnd = text
	return writeAt(dir, name, r)
}

// readAt reads the record name of the directory of the descriptor dir,
// relative to it, and returns it with the bytes it was read from. It must
// be a whole record (as Read takes one) and this user's, named by its
// session, a private regular file (opened without following a link).
func readAt(dir int, name string) (Record, []byte, error) {
	fd, err := sys.OpenAt(dir, name, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK)
	if err != nil {
		return Record{}, nil, fmt.Errorf("ledger: %s: %w", name, err)
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	st, err := sys.Fstat(fd)
	if err != nil {
		return Record{}, nil, fmt.Errorf("ledger: %s: %w", name, err)
	}
	switch {
	case st.Mode&syscall.S_IFMT != syscall.S_IFREG:
		return Record{}, nil, fmt.Errorf("ledger: %s is not a regular file", name)
	case int(st.Uid) != os.Getuid():
		return Record{}, nil, fmt.Errorf("ledger: %s belongs to another user", name)
	case st.Mode&0o077 != 0:
		return Record{}, nil, fmt.Errorf("ledger: %s is open to others (mode %#o)", name, st.Mode&0o777)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxRecord+1))
	if err != nil {
		return Record{}, nil, fmt.Errorf("ledger: %s: %w", name, err)
	}
	if len(b) > maxRecord {
		return Record{}, nil, fmt.Errorf("ledger: %s: over %d bytes", name, maxRecord)
	}
	r, err := parse(b)
	if err != nil || (FileName(r.Session) != name && !strings.HasPrefix(name, ".tmp-")) {
		return Record{}, nil, fmt.Errorf("ledger: %s: torn or foreign record: %v", name, err)
	}
	return r, b, nil
}

// ReadRecord reads the record named name from the directory of the
// descriptor dir, as NoteEnd reads it.
func ReadRecord(dir int, name string) (Record, error) {
	r, _, err := readAt(dir, name)
	return r, err
}

// Remove removes session's record from the directory of the descriptor
// dir, by its name relative to dir, never through a path.
func Remove(dir int, session string) error {
	err := sys.Unlinkat(dir, FileName(session), 0)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("ledger: %w", err)
	}
	return nil
}

// Read reads every record of dir, each as [ReadRecord] does, in the
// order of their names. A file that is not a whole record of version 1
// or of this version, this user's and private, is a problem, not an
// error.
func Read(dir string) ([]Record, []Problem, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("ledger: %w", err)
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, nil, fmt.Errorf("ledger: %w", err)
	}
	slices.Sort(names)
	var recs []Record
	var probs []Problem
	for _, n := range names {
		if strings.HasPrefix(n, ".tmp-") {
			continue // a record being written
		}
		if r, _, err := readAt(int(d.Fd()), n); err != nil {
			probs = append(probs, Problem{File: n, Reason: err.Error()})
		} else {
			recs = append(recs, r)
		}
	}
	return recs, probs, nil
}

// parse reads one record: exactly one JSON object of version 1 or of this
// version, with every field a reclaim needs, and nothing after it.
func parse(b []byte) (Record, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	var r Record
	if err := d.Decode(&r); err != nil {
		return Record{}, err
	}
	if d.More() {
		return Record{}, errors.New("data after the record")
	}
	switch {
	case r.Version != Version && r.Version != 1:
		return Record{}, fmt.Errorf("version %d", r.Version)
	case r.BootID == "" || r.Session == "" || r.Starter.PID <= 0 || r.Guard.PID <= 0 || r.Engine.PID <= 0 || r.Engine.Token.Start == 0:
		return Record{}, errors.New("fields missing")
	case r.UID != os.Getuid():
		return Record{}, fmt.Errorf("uid %d", r.UID)
	}
	return r, nil
}

// Now is the time a record is created, as it writes it.
func Now() string { return time.Now().UTC().Format(time.RFC3339Nano) }
