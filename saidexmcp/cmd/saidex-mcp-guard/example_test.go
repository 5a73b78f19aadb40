package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/saidex/saidex-go/saidexmcp"
)

// The guard in front of a stdio server (here the test binary, whose
// write_file tool is registered with the Go SDK's low-level AddTool, which
// does not validate): the same broken call runs on the bare server with
// the wrong arguments, and through the guard is answered with feedback and
// never sent. A call with a string for an integer reaches the server
// converted.
func Example() {
	dir, err := os.MkdirTemp("", "guard-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	env := append(os.Environ(), "SAIDEX_TEST_UPSTREAM=stdio", "SAIDEX_TEST_UPSTREAM_LOG="+filepath.Join(dir, "log"))
	ctx := context.Background()
	calls := []string{`{"path": "notes.txt", "contents": "hello"}`, `{"path": "notes.txt", "content": "hello", "retries": "3"}`}

	run := func(title string, cmd *exec.Cmd) {
		cmd.Env = env
		session, err := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "v1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		defer session.Close()
		fmt.Println(title)
		for _, args := range calls {
			res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "write_file", Arguments: json.RawMessage(args)})
			if err != nil {
				fmt.Println("error:", err)
				continue
			}
			fmt.Printf("isError=%v: %s\n", res.IsError, saidexmcp.ResultText(res))
		}
	}
	run("the server alone:", exec.Command(os.Args[0]))
	guard := exec.Command(guardBin, "--", os.Args[0])
	guard.Stderr = nil // its log of the refused call goes nowhere here
	run("behind saidex-mcp-guard:", guard)
	// Output:
	// the server alone:
	// isError=false: wrote 0 bytes; received {"path":"notes.txt","contents":"hello"}
	// isError=false: wrote 5 bytes; received {"path":"notes.txt","content":"hello","retries":"3"}
	// behind saidex-mcp-guard:
	// isError=true: Error: write_file was not executed because its arguments do not match the tool's schema:
	// - content: required field is missing; expected a string (the arguments have "contents" instead, which the tool does not define)
	// Call write_file again with these fields corrected.
	// isError=false: wrote 5 bytes; received {"content":"hello","path":"notes.txt","retries":3}
}
