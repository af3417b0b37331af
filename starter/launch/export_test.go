package launch

import "time"

// TailSize is stderrTail, for the external tests.
const TailSize = stderrTail

// WaitDelayOf is the wait delay Start gave s's session-starter.
func WaitDelayOf(s *Session) time.Duration { return s.waitDelay }
