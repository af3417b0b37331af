package mcp_test

import (
	"context"
	"fmt"
	"log"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	ssmcp "github.com/session-starter/session-starter/starter/mcp"
)

// A client of the official SDK runs its stdio server under
// session-starter: the SDK's CommandTransport is replaced by a Transport.
func ExampleTransport() {
	ctx := context.Background()
	t := ssmcp.Command("npx", "-y", "@modelcontextprotocol/server-everything")
	t.Options.Grace = 2 * time.Second // on every end SIGTERM first, SIGKILL 2 s later
	client := sdk.NewClient(&sdk.Implementation{Name: "host", Version: "v1.0.0"}, nil)
	session, err := client.Connect(ctx, t, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("server PID:", t.PID())
	// ... use session ...
	if err := session.Close(); err != nil {
		log.Print(err)
	}
	ended, err := t.Wait()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("ended:", ended.Reason)
}
