package starter

import (
	"errors"
	"fmt"

	"github.com/session-starter/session-starter/internal/end"
)

// errNoSubreaper wraps errors.ErrUnsupported: macOS has no subreaper.
var errNoSubreaper = fmt.Errorf("no subreaper on this platform: %w", errors.ErrUnsupported)

// CanAdoptOrphans ([Options.Subreaper] can be had) is false: macOS has no
// subreaper. A process that left the Engine's group (setsid, a double
// fork) is found at the end by its lineage instead (reaperHolders).
const CanAdoptOrphans = false

// subreaper fails: macOS has no subreaper.
func subreaper() (func(), error) { return nil, errNoSubreaper }

// reaperHolders is, there being no reaper, the escapee sweep by lineage:
// the Engine's descendants by unique id, each verified by it again right
// before its signal.
func (s *session) reaperHolders() []end.Holder { return s.lineageHolders() }
