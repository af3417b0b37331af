// Command goclient is the lifetime suite's client on the official MCP Go
// SDK, run as a process of its own so that the suite can end it with
// SIGTERM or SIGKILL.
//
// Usage:
//
//	goclient INTEGRATION MARK COMMAND [ARG...]
//
// INTEGRATION is "bare" (the SDK's CommandTransport starts COMMAND) or
// "starter-mcp" (the Transport of starter/mcp starts it under
// session-starter, SESSION_STARTER_BINARY, with LIFETIME_GRACE_MS as its
// grace). MARK is set as LIFETIME_MARK in the server's environment only.
// It connects, calls the tool "start", prints {"event":"ready","pids":[…]}
// and waits for a line on its stdin. Then it prints
// {"event":"closing","t0":ms} (t0 when Close is called, in ms since the
// epoch), closes the session and prints {"event":"closed"}.
package main
