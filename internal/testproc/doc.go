// Package testproc helps tests start and end real processes safely. It is
// imported only by _test.go files.
//
// Every process it starts is the test's own unreaped child, signalled only
// through a pidfd, so cleanup can never reach a process that is not the
// test's; every wait is bounded by [TooLong].
//
// After a package's tests, [CheckGoroutinesEnded] fails a passing run
// that left a goroutine running.
package testproc
