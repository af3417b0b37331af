module github.com/session-starter/session-starter/scripts/lifetime/goclient

go 1.26.0

require (
	github.com/modelcontextprotocol/go-sdk v1.8.0
	github.com/session-starter/session-starter/starter/mcp v0.0.0
)

require (
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/session-starter/session-starter v0.1.0 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.20.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)

// The suite runs the working tree's packages.
replace (
	github.com/session-starter/session-starter => ../../..
	github.com/session-starter/session-starter/starter/mcp => ../../../starter/mcp
)
