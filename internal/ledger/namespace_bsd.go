//go:build darwin || freebsd

package ledger

// PIDNamespace is empty on macOS and FreeBSD: there is one.
type PIDNamespace struct{}

// Namespaces is empty on macOS and FreeBSD: a PID, a uid mean the same
// to every process of the boot (a FreeBSD jail sees a part of them, by
// the same numbers), and a record names none.
type Namespaces struct{}

// Here returns nil: there are no namespaces to name.
func Here() (*Namespaces, error) { return nil, nil }

// whereIs: every record of the boot is of this process's namespaces.
func whereIs(int, Record, *Namespaces, bool) (int, string) { return nsOwn, "" }
