package starter

import (
	"errors"
	"fmt"

	"github.com/session-starter/session-starter/internal/end"
)

// errNoSubreaper wraps errors.ErrUnsupported: macOS has no subreaper.
var errNoSubreaper = fmt.Errorf("no subreaper on this platform: %w", errors.ErrUnsupported)

// CanAdoptOrphans ([Options.Subreaper] can be had) is false: macOS has no subreaper, so a process that left
// the Engine's group (setsid, a double fork) outlives the session.
const CanAdoptOrphans = false

// subreaper fails: macOS has no subreaper.
func subreaper() (func(), error) { return nil, errNoSubreaper }

// reaperHolders is empty: there is no reaper.
func (s *session) reaperHolders() []end.Holder { return nil }
