package guard

import "github.com/session-starter/session-starter/internal/wire"

// The guard plays three hidden modes: the guard proper after the porch,
// the porch's verifying end ("guard-end") and the pin.
func init() { wire.Play(guardMain, "guard", "guard-end", "pin") }

// exitRefused is the exit status of a guard that refused to arm (its
// reason went to the starter as "refused CODE"), or of the guard mode on
// a platform that has none.
const exitRefused = 2
