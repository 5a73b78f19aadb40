package main

import (
	"encoding/json"
	"flag"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
)

// docPath is the guide whose command lines these tests check.
const docPath = "../../../docs/mcp-server.md"

// fenced returns the bodies of the blocks of lang in markdown.
func fenced(markdown, lang string) []string {
	re := regexp.MustCompile("(?ms)^```" + lang + "\n(.*?)^```")
	var out []string
	for _, m := range re.FindAllStringSubmatch(markdown, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestDocCommandLines: every saidex-mcp-guard command line of the guide
// parses with the guard's own flags, the install line names this package,
// the client configuration's arguments parse, and the guide names every
// flag.
func TestDocCommandLines(t *testing.T) {
	b, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	var lines, installs int
	for _, block := range fenced(doc, "sh") {
		for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
			fields := strings.Fields(line)
			switch {
			case len(fields) == 0:
			case fields[0] == "saidex-mcp-guard":
				lines++
				if _, err := parse(fields[1:], io.Discard); err != nil {
					t.Errorf("%q: %v", line, err)
				}
			case fields[0] == "go" && len(fields) == 3 && fields[1] == "install":
				installs++
				if want := "github.com/saidex/saidex-go/saidexmcp/cmd/saidex-mcp-guard@latest"; fields[2] != want {
					t.Errorf("install line %q, want %s", line, want)
				}
			default:
				t.Errorf("unchecked command line %q", line)
			}
		}
	}
	if lines < 3 || installs != 1 {
		t.Fatalf("%d command lines and %d install lines checked", lines, installs)
	}
	configs := fenced(doc, "json")
	if len(configs) == 0 {
		t.Fatal("no client configuration")
	}
	for _, block := range configs {
		var cfg struct {
			MCPServers map[string]struct {
				Command string   `json:"command"`
				Args    []string `json:"args"`
			} `json:"mcpServers"`
		}
		if err := json.Unmarshal([]byte(block), &cfg); err != nil {
			t.Fatalf("configuration: %v", err)
		}
		for name, s := range cfg.MCPServers {
			if s.Command != "saidex-mcp-guard" {
				t.Errorf("%s: command %q", name, s.Command)
			}
			if _, err := parse(s.Args, io.Discard); err != nil {
				t.Errorf("%s: args %q: %v", name, s.Args, err)
			}
		}
	}
	var c config
	flags(&c, io.Discard).VisitAll(func(f *flag.Flag) {
		if !strings.Contains(doc, "`--"+f.Name+"`") {
			t.Errorf("the guide does not name --%s", f.Name)
		}
	})
}
