package launch

import (
	"errors"
	"time"
)

// MaxDuration bounds every duration session-starter reads. A hundred
// years is longer than any session, and keeps deadlines computed from it
// (now plus grace plus kill budget) far from time.Duration's overflow at
// about 292 years. session-starter refuses a longer one, and so does
// [Start].
const MaxDuration = 100 * 365 * 24 * time.Hour

// ErrDurationRange is wrapped by the error of [Start], as by
// session-starter's, for a duration longer than [MaxDuration].
var ErrDurationRange = errors.New("out of range (at most 100 years)")
