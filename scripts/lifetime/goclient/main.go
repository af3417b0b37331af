package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	ssmcp "github.com/session-starter/session-starter/starter/mcp"
)

func report(v map[string]any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s\n", b)
}

func transport(integration, mark string, argv []string) (sdk.Transport, error) {
	env := append(os.Environ(), "LIFETIME_MARK="+mark)
	switch integration {
	case "bare":
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = env
		cmd.Stderr = os.Stderr
		return &sdk.CommandTransport{Command: cmd}, nil
	case "starter-mcp":
		ms, err := strconv.Atoi(os.Getenv("LIFETIME_GRACE_MS"))
		if err != nil || ms <= 0 {
			return nil, fmt.Errorf("LIFETIME_GRACE_MS %q: want a positive number of ms", os.Getenv("LIFETIME_GRACE_MS"))
		}
		t := ssmcp.Command(argv[0], argv[1:]...)
		t.Options.Binary = os.Getenv("SESSION_STARTER_BINARY")
		t.Options.Env = env
		t.Options.Grace = time.Duration(ms) * time.Millisecond
		t.Options.Stderr = os.Stderr
		return t, nil
	}
	return nil, fmt.Errorf("unknown integration %q", integration)
}

func run() error {
	if len(os.Args) < 4 {
		return fmt.Errorf("usage: goclient INTEGRATION MARK COMMAND [ARG...]")
	}
	t, err := transport(os.Args[1], os.Args[2], os.Args[3:])
	if err != nil {
		return err
	}
	ctx := context.Background()
	client := sdk.NewClient(&sdk.Implementation{Name: "lifetime-go-client", Version: "1"}, nil)
	session, err := client.Connect(ctx, t, nil)
	if err != nil {
		return err
	}
	res, err := session.CallTool(ctx, &sdk.CallToolParams{Name: "start", Arguments: map[string]any{}})
	if err != nil {
		return err
	}
	text, ok := res.Content[0].(*sdk.TextContent)
	if !ok {
		return fmt.Errorf("start: the result is not text")
	}
	var pids []int
	if err := json.Unmarshal([]byte(text.Text), &pids); err != nil {
		return fmt.Errorf("start: %v", err)
	}
	report(map[string]any{"event": "ready", "pids": pids})

	bufio.NewReader(os.Stdin).ReadString('\n')
	report(map[string]any{"event": "closing", "t0": time.Now().UnixMilli()})
	if err := session.Close(); err != nil {
		fmt.Fprintf(os.Stderr, "goclient: close: %v\n", err)
	}
	report(map[string]any{"event": "closed"})
	return nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "goclient: %v\n", err)
		os.Exit(1)
	}
}
