// Package mcp is a transport for the official Go MCP SDK
// (github.com/modelcontextprotocol/go-sdk) that runs a stdio server
// under session-starter. The server and everything it starts, setsid'd
// jobs included, end when the client closes the session, and when the
// client process dies, however it dies.
//
// It replaces the SDK's [mcp.CommandTransport] in one line:
//
//	t := ssmcp.Command("my-server", "--stdio") // was &mcp.CommandTransport{Command: exec.Command("my-server", "--stdio")}
//	session, err := client.Connect(ctx, t, nil)
//
// The server runs as session-starter's Engine, with "--stdio" (the
// parent watch, and the stdin watch on a pipe): the client's death
// closes the server's stdin and ends the session a stdin grace later,
// even through a wrapper shell or npx. [Transport.PID] is the Engine's
// PID, the server's own (what a host shows and reaps by), not
// session-starter's. [Transport.Wait] returns the record of how the
// session ended.
//
// The messages are the SDK's own newline-delimited JSON: Connect hands
// the server's stdin and stdout to [mcp.IOTransport].
//
// The module is a nested one, so that the main module's dependencies
// stay golang.org/x/sys, pflag and zerolog; it needs an installed
// session-starter of the same release (Options.Binary, or
// "session-starter" in PATH).
package mcp
