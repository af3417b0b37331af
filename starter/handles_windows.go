package starter

import (
	"fmt"
	"runtime"
	"time"

	"github.com/session-starter/session-starter/internal/sys"
)

// checkHandle fails unless h is an open handle of this process.
func checkHandle(flag string, h int) error {
	if _, err := sys.GetHandleInformation(sys.Handle(h)); err != nil {
		return fmt.Errorf("%s %d: not an open handle: %w", flag, h, err)
	}
	for _, std := range []uint32{sys.STD_INPUT_HANDLE, sys.STD_OUTPUT_HANDLE, sys.STD_ERROR_HANDLE} {
		if s, err := sys.GetStdHandle(std); err == nil && s == sys.Handle(h) {
			return fmt.Errorf("%s %d: a standard handle", flag, h)
		}
	}
	return nil
}

// noInherit clears the inherit flag of h in this process's handle table
// (the launcher's own handle is another entry of another table) and
// returns a function that puts it back.
func noInherit(h sys.Handle) (func(), error) {
	flags, err := sys.GetHandleInformation(h)
	if err != nil {
		return nil, err
	}
	if err := sys.SetHandleInformation(h, sys.HANDLE_FLAG_INHERIT, 0); err != nil {
		return nil, err
	}
	return func() {
		_ = sys.SetHandleInformation(h, sys.HANDLE_FLAG_INHERIT, flags&sys.HANDLE_FLAG_INHERIT)
	}, nil
}

// inheritableStdio returns inheritable copies of this process's standard
// handles for the Engine (0 where there is none), as os/exec makes them,
// and a function that closes the copies once the Engine has its own.
func inheritableStdio() ([3]sys.Handle, func()) {
	var out [3]sys.Handle
	var dups []*sys.Handle
	for i, std := range []uint32{sys.STD_INPUT_HANDLE, sys.STD_OUTPUT_HANDLE, sys.STD_ERROR_HANDLE} {
		h, err := sys.GetStdHandle(std)
		if err != nil || h == 0 {
			continue
		}
		// A handle that cannot be duplicated (a console pseudo handle of
		// an old system) is passed as it is.
		out[i] = h
		if d, err := sys.DuplicateHandle(h, true); err == nil {
			out[i] = d
			dups = append(dups, &out[i])
		}
	}
	return out, func() { sys.CloseHandles(dups...) }
}

// control watches the control handle for end of input: a goroutine on a
// thread of its own reads a private duplicate of it and discards what it
// reads. A synchronous read cannot be woken any other way, so close
// cancels it with CancelSynchronousIo.
type control struct {
	h      sys.Handle
	thread sys.Handle
	done   chan struct{} // closed at end of input or a read error
	exited chan struct{}
}

func openControl(fd int) (*control, error) {
	h := sys.Handle(fd)
	if err := checkHandle("--control-fd", fd); err != nil {
		return nil, err
	}
	if t, err := sys.GetFileType(h); err != nil || t != sys.FILE_TYPE_PIPE {
		return nil, fmt.Errorf("--control-fd %d: not a pipe", fd)
	}
	c := &control{done: make(chan struct{}), exited: make(chan struct{})}
	var err error
	if c.h, err = sys.DuplicateHandle(h, false); err != nil {
		return nil, fmt.Errorf("--control-fd %d: %w", fd, err)
	}
	started := make(chan error, 1)
	go c.read(started)
	if err := <-started; err != nil {
		_ = sys.CloseHandle(c.h)
		return nil, fmt.Errorf("--control-fd %d: %w", fd, err)
	}
	return c, nil
}

func (c *control) read(started chan<- error) {
	defer close(c.exited)
	// The thread stays this goroutine's, so that close can cancel the
	// read it is blocked in.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var err error
	if c.thread, err = sys.DuplicateHandle(sys.CurrentThread(), false); err != nil {
		started <- err
		return
	}
	started <- nil
	defer close(c.done)
	var buf [512]byte
	for {
		if _, err := sys.ReadFile(c.h, buf[:]); err != nil {
			// ERROR_BROKEN_PIPE is end of input; any other error, a
			// cancelled read included, ends the watch as well.
			return
		}
	}
}

// close stops the reader and closes the duplicate. If the read cannot be
// cancelled within readerWait, the reader and its duplicate are left: it
// ends when the launcher closes its end.
func (c *control) close() {
	for range 3 {
		// Fails when the reader is not in a read yet: the next round
		// catches it there.
		_ = sys.CancelSynchronousIo(c.thread)
		select {
		case <-c.exited:
			sys.CloseHandles(&c.thread, &c.h)
			return
		case <-time.After(readerWait / 3):
		}
	}
}

// checkStatusFD validates the status handle h: an open handle of this
// process, not a standard one, and not the control handle.
func checkStatusFD(h, controlFD int) error {
	if err := checkHandle("--status-fd", h); err != nil {
		return err
	}
	if h == controlFD {
		return fmt.Errorf("--status-fd %d: the same handle as --control-fd", h)
	}
	return nil
}

// writeStatus writes b to the status handle h. A reader that is gone
// makes the write fail, which is ignored.
func writeStatus(h int, b []byte) {
	for len(b) > 0 {
		n, err := sys.WriteFile(sys.Handle(h), b)
		if err != nil || n == 0 {
			return
		}
		b = b[n:]
	}
}
