//go:build linux && portable

package guard

import (
	"github.com/session-starter/session-starter/internal/end"
	"github.com/session-starter/session-starter/internal/mark"
)

// markHolders is none: the portable build takes macOS's paths, but
// neither verifies marked processes (package internal/mark) nor reads
// Linux's process table as macOS's, so nothing is signalled on a guess.
func markHolders(mark.ID, uint64, int, []int) []end.Holder { return nil }
