//go:build linux && !(!portable && !session_starter_noraw && go1.26 && !go1.28 && (amd64 || arm64))

package rawfork

import (
	"errors"
	"fmt"
)

// Supported reports that this build has no raw children: another
// architecture or toolchain than they are proven on, the portable build,
// or the build tag session_starter_noraw.
const Supported = false

var errNone = fmt.Errorf("rawfork: no raw children in this build: %w", errors.ErrUnsupported)

// CloseRangeWorks reports false: nothing here needs it.
func CloseRangeWorks() bool { return false }

// StartGate is never called where Supported is false.
func StartGate(GateSpec) (Gate, error) { return Gate{}, errNone }

// StartPorch is never called where Supported is false.
func StartPorch(PorchSpec) (Porch, error) { return Porch{}, errNone }
