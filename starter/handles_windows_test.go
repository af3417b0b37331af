package starter

import (
	"os"
	"testing"
	"time"
)

// controlPipe returns a control watching the read end of a fresh pipe,
// and the write end.
func controlPipe(t *testing.T) (*control, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	c, err := openControl(int(r.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	return c, w
}

func TestControlSeesEndOfInputAndIgnoresData(t *testing.T) {
	c, w := controlPipe(t)
	defer c.close()
	if _, err := w.WriteString("data is ignored\n"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	select {
	case <-c.done:
	case <-time.After(time.Minute):
		t.Fatal("no end of input seen a minute after the write end was closed")
	}
}

// TestControlReaderIsCancelledAtClose: a session that ends for another
// reason leaves no reader blocked on the launcher's pipe.
func TestControlReaderIsCancelledAtClose(t *testing.T) {
	c, _ := controlPipe(t)
	c.close()
	select {
	case <-c.exited:
	default:
		t.Fatal("the control reader still runs after close")
	}
}
