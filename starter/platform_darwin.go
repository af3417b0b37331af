package starter

import (
	"errors"
	"fmt"
)

// errNoSubreaper wraps errors.ErrUnsupported: macOS has no subreaper.
var errNoSubreaper = fmt.Errorf("no subreaper on this platform: %w", errors.ErrUnsupported)

// subreaper fails: macOS has no subreaper.
func subreaper() (func(), error) { return nil, errNoSubreaper }

// reaper is nil: macOS has no reaper. The sweep by lineage finds what
// left the Engine's group.
func (*session) reaper() layer { return nil }
