module github.com/session-starter/session-starter/starter/mcp

go 1.26.0

require (
	github.com/modelcontextprotocol/go-sdk v1.8.0
	github.com/session-starter/session-starter v0.1.0
	golang.org/x/sys v0.50.0
)

require (
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.20.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)

// The enclosing repository's tree, for development and the tests. A
// consumer of this module ignores it and gets the version required
// above (scripts/dist/RELEASE.md).
replace github.com/session-starter/session-starter => ../..
