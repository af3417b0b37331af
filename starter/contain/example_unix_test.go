//go:build darwin || freebsd || linux

package contain_test

import (
	"context"
	"fmt"
	"time"

	"github.com/session-starter/session-starter/starter/contain"
)

// A tool call whose shell leaves a background process: with EndOnExit
// the leader's exit ends its whole tree, and Output does not wait for the
// background process, which held the output pipe.
func ExampleCommand() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := contain.Command(ctx, "sh", "-c", "echo hello; sleep 300 &")
	c.EndOnExit = true
	out, err := c.Output()
	r := c.Result()
	fmt.Printf("%s%v, %v, %d left\n", out, err, r.Tree, len(r.Left))
	// Output:
	// hello
	// <nil>, killed, 0 left
}
