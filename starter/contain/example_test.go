package contain_test

import "github.com/session-starter/session-starter/starter/contain"

// A Go Engine that contains itself when its launcher sets
// SESSION_STARTER_CONTAIN=1; without it, it runs as it always did.
func ExampleIfRequested() {
	// In package main:
	//
	//	func main() {
	//		contain.IfRequested() // first: it never returns when requested
	//		serve(os.Stdin, os.Stdout)
	//	}
	contain.IfRequested()
}
