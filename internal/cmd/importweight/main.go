// Command importweight measures what importing saidex costs a program: the
// packages it compiles and the size of its binary. scripts/bench.sh runs it
// and appends its output, the "Import weight" section, to BENCHMARKS.md.
//
//	go run ./internal/cmd/importweight [-root DIR] [-agent] [-by-dependency]
//
// It writes minimal programs into a temporary module that requires saidex
// through a replace directive pointing at the checkout in DIR (default: the
// module root of the current directory), with the langchaingo version of
// saidex's go.mod:
//
//   - without saidex: langchaingo's OpenAI client, the tools package and one
//     tool, whose calls the program runs itself;
//   - with saidex: the same tool made with saidex.NewTool and run by a
//     saidex.ToolNode;
//   - with saidex/agent (with -agent): the same node driven by agent.New in
//     langchaingo's agents.Executor.
//
// For each it reports the packages `go list -deps` lists (standard library
// included, and the count outside it) and the size of the binary of
// `go build -trimpath`, unstripped and stripped (-ldflags "-s -w"); the same
// flags build every program. It then checks the difference of the first two
// against the goal of issue 14: at most 35 extra packages and 2.5 MB (10⁶
// bytes) of extra binary, unstripped and stripped. With -by-dependency it
// also attributes the packages saidex adds to saidex's direct dependencies
// (by module): a package only one of them reaches is counted for it, a
// package several reach for all of them together.
//
// The temporary module starts from saidex's go.sum and resolves with
// -mod=mod, so nothing is downloaded when the module cache holds saidex's
// dependencies.
package main

import (
	"bytes"
	"cmp"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// Goals of issue 14 for the program with saidex, over the one without.
const (
	maxExtraPackages = 35
	maxExtraMB       = 2.5
)

// program is one minimal program to measure.
type program struct {
	dir   string // directory in the temporary module
	label string // row label
	src   string
}

const withoutSrc = `// Command without is the baseline: langchaingo's OpenAI client, the
// tools package and one tool whose calls the program runs itself.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"
	"github.com/tmc/langchaingo/tools"
)

type weather struct{}

func (weather) Name() string        { return "get_weather" }
func (weather) Description() string { return "The weather in a city." }
func (weather) Call(_ context.Context, input string) (string, error) {
	var args struct {
		City string ` + "`json:\"city\"`" + `
	}
	if err := json.Unmarshal([]byte(input), &args); err != nil {
		return "", err
	}
	return "sunny in " + args.City, nil
}

func main() {
	ctx := context.Background()
	llm, err := openai.New()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var tool tools.Tool = weather{}
	defs := []llms.Tool{{Type: "function", Function: &llms.FunctionDefinition{
		Name: tool.Name(), Description: tool.Description(),
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}},
	}}}
	msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris?")}
	resp, err := llm.GenerateContent(ctx, msgs, llms.WithTools(defs))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, tc := range resp.Choices[0].ToolCalls {
		out, err := tool.Call(ctx, tc.FunctionCall.Arguments)
		fmt.Println(out, err)
	}
}
`

const withSrc = `// Command with is the baseline with its tool made by saidex.NewTool and
// run by a saidex.ToolNode.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/saidex/saidex-go"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"
	"github.com/tmc/langchaingo/tools"
)

type weatherArgs struct {
	City string ` + "`json:\"city\"`" + `
}

func main() {
	ctx := context.Background()
	llm, err := openai.New()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	tool := saidex.NewTool("get_weather", "The weather in a city.", func(_ context.Context, a weatherArgs) (string, error) {
		return "sunny in " + a.City, nil
	})
	node, err := saidex.NewToolNode([]tools.Tool{tool})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris?")}
	resp, err := llm.GenerateContent(ctx, msgs, llms.WithTools(node.Definitions()))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ai := llms.MessageContent{Role: llms.ChatMessageTypeAI}
	for _, tc := range resp.Choices[0].ToolCalls {
		ai.Parts = append(ai.Parts, tc)
	}
	msgs, err = node.Invoke(ctx, append(msgs, ai))
	fmt.Println(len(msgs), err)
}
`

const agentSrc = `// Command withagent drives the ToolNode of the program "with" by
// agent.New in langchaingo's agents.Executor.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/agent"
	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms/openai"
	"github.com/tmc/langchaingo/tools"
)

type weatherArgs struct {
	City string ` + "`json:\"city\"`" + `
}

func main() {
	llm, err := openai.New()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	tool := saidex.NewTool("get_weather", "The weather in a city.", func(_ context.Context, a weatherArgs) (string, error) {
		return "sunny in " + a.City, nil
	})
	node, err := saidex.NewToolNode([]tools.Tool{tool})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	a, err := agent.New(llm, node)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out, err := chains.Run(context.Background(), agents.NewExecutor(a), "Weather in Paris?")
	fmt.Println(out, err)
}
`

// measure is what one program costs.
type measure struct {
	label            string
	packages, nonStd int
	binary, stripped int64
	pkgs             map[string]pkg // by import path
}

// pkg is one package of a program's build.
type pkg struct {
	std     bool
	module  string // "" for the standard library
	imports []string
}

func main() {
	root := flag.String("root", "", "saidex checkout to measure (default: the module root of the current directory)")
	withAgent := flag.Bool("agent", false, "also measure a program using the agent subpackage")
	byDep := flag.Bool("by-dependency", false, "also attribute the packages saidex adds to its direct dependencies")
	flag.Parse()
	if err := run(os.Stdout, *root, *withAgent, *byDep); err != nil {
		fmt.Fprintln(os.Stderr, "importweight:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, root string, withAgent, byDep bool) error {
	if root == "" {
		gomod, err := goOut(".", "env", "GOMOD")
		if err != nil || gomod == "" || gomod == os.DevNull {
			return fmt.Errorf("not inside a module; pass -root: %v", err)
		}
		root = filepath.Dir(gomod)
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	lcVersion, err := goOut(root, "list", "-m", "-f", "{{.Version}}", "github.com/tmc/langchaingo")
	if err != nil {
		return err
	}
	goVersion, err := goOut(root, "list", "-m", "-f", "{{.GoVersion}}")
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "importweight")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	gomod := fmt.Sprintf("module importweight\n\ngo %s\n\nrequire (\n\tgithub.com/saidex/saidex-go v0.0.0\n\tgithub.com/tmc/langchaingo %s\n)\n\nreplace github.com/saidex/saidex-go => %s\n", goVersion, lcVersion, root)
	if err := os.WriteFile(filepath.Join(tmp, "go.mod"), []byte(gomod), 0o644); err != nil {
		return err
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(tmp, "go.sum"), sum, 0o644); err != nil {
		return err
	}
	progs := []program{
		{"without", "langchaingo OpenAI client + `tools` + one tool, without saidex", withoutSrc},
		{"with", "the same with `saidex.NewTool` and a `saidex.ToolNode`", withSrc},
	}
	if withAgent {
		progs = append(progs, program{"withagent", "the same driven by `agent.New` in `agents.Executor` (for reference)", agentSrc})
	}
	var ms []measure
	for _, p := range progs {
		if err := os.MkdirAll(filepath.Join(tmp, p.dir), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(tmp, p.dir, "main.go"), []byte(p.src), 0o644); err != nil {
			return err
		}
		m, err := measureProgram(tmp, p)
		if err != nil {
			return fmt.Errorf("%s: %w", p.dir, err)
		}
		ms = append(ms, m)
	}
	goVer, err := goOut(root, "env", "GOVERSION")
	if err != nil {
		return err
	}
	report(w, ms, goVer, lcVersion, byDep)
	return nil
}

// measureProgram lists the packages of one program and builds it twice.
func measureProgram(mod string, p program) (measure, error) {
	m := measure{label: p.label, pkgs: map[string]pkg{}}
	out, err := goOut(mod, "list", "-mod=mod", "-deps", "-f", "{{.ImportPath}} {{.Standard}} {{with .Module}}{{.Path}}{{else}}-{{end}} {{join .Imports \",\"}}", "./"+p.dir)
	if err != nil {
		return m, err
	}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line + " ") // a package without imports has no fourth field
		if len(f) < 3 {
			return m, fmt.Errorf("unexpected go list line %q", line)
		}
		p := pkg{std: f[1] == "true"}
		if !p.std {
			p.module = f[2]
			m.nonStd++
		}
		if len(f) > 3 {
			p.imports = strings.Split(f[3], ",")
		}
		m.pkgs[f[0]] = p
		m.packages++
	}
	bin := filepath.Join(mod, p.dir+".bin")
	for _, b := range []struct {
		size  *int64
		flags []string
	}{
		{&m.binary, nil},
		{&m.stripped, []string{"-ldflags=-s -w"}},
	} {
		args := append([]string{"build", "-mod=mod", "-trimpath", "-o", bin}, b.flags...)
		if _, err := goOut(mod, append(args, "./"+p.dir)...); err != nil {
			return m, err
		}
		fi, err := os.Stat(bin)
		if err != nil {
			return m, err
		}
		*b.size = fi.Size()
	}
	return m, nil
}

func mb(n int64) float64 { return float64(n) / 1e6 }

func report(w io.Writer, ms []measure, goVersion, lcVersion string, byDep bool) {
	fmt.Fprintf(w, "## Import weight (`internal/cmd/importweight`)\n\n")
	fmt.Fprintf(w, "What a program pays for importing saidex: minimal programs built in a temporary module\n")
	fmt.Fprintf(w, "that requires this checkout through a `replace` directive (%s, langchaingo %s).\n", goVersion, lcVersion)
	fmt.Fprintf(w, "Packages are those `go list -deps` lists, standard library included (outside it in\n")
	fmt.Fprintf(w, "parentheses); binaries are built with `go build -trimpath`, unstripped and stripped\n")
	fmt.Fprintf(w, "(`-ldflags \"-s -w\"`), the same flags on every side. MB = 10⁶ bytes.\n\n")
	fmt.Fprintf(w, "| Program | Packages | Binary (MB) | Stripped (MB) |\n|---|---:|---:|---:|\n")
	for _, m := range ms {
		fmt.Fprintf(w, "| %s | %d (%d) | %.1f | %.1f |\n", m.label, m.packages, m.nonStd, mb(m.binary), mb(m.stripped))
	}
	base, with := ms[0], ms[1]
	extraPkgs := with.packages - base.packages
	extraMB := mb(with.binary - base.binary)
	fmt.Fprintf(w, "| **saidex adds** | **+%d** (+%d) | **+%.1f** | **+%.1f** |\n\n", extraPkgs, with.nonStd-base.nonStd, extraMB, mb(with.stripped-base.stripped))
	fmt.Fprintf(w, "| Goal (issue 14) | Target | Measured | Met |\n|---|---:|---:|---|\n")
	fmt.Fprintf(w, "| Extra packages | ≤ %d | %d | %s |\n", maxExtraPackages, extraPkgs, met(float64(extraPkgs) <= maxExtraPackages))
	fmt.Fprintf(w, "| Extra binary, unstripped | ≤ %.1f MB | %.2f MB | %s |\n", maxExtraMB, extraMB, met(extraMB <= maxExtraMB))
	extraStripped := mb(with.stripped - base.stripped)
	fmt.Fprintf(w, "| Extra binary, stripped | ≤ %.1f MB | %.2f MB | %s |\n", maxExtraMB, extraStripped, met(extraStripped <= maxExtraMB))
	if !byDep {
		return
	}
	rows := byDependency(base, with)
	fmt.Fprintf(w, "\nThe packages saidex adds, by the direct dependency of saidex that brings them in (packages\n")
	fmt.Fprintf(w, "several dependencies reach are counted once, for all of them together):\n\n")
	fmt.Fprintf(w, "| Brought in by | Packages | Of which standard library |\n|---|---:|---:|\n")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | +%d | %d |\n", r.by, r.n, r.std)
	}
}

// depRow is one line of the breakdown: the packages that by, and only by,
// brings in.
type depRow struct {
	by     string
	n, std int
}

// byDependency attributes the packages of with that base lacks to the
// modules of the direct imports of the saidex package. The saidex package
// itself counts for "saidex"; a package reached from several of those
// modules counts for all of them together.
func byDependency(base, with measure) []depRow {
	const self = "github.com/saidex/saidex-go"
	isMain := func(path string) bool { return !with.pkgs[path].std && with.pkgs[path].module == "importweight" }
	added := map[string]bool{}
	for path := range with.pkgs {
		if _, ok := base.pkgs[path]; !ok && !isMain(path) {
			added[path] = true
		}
	}
	// owners maps every added package to the groups whose imports reach it.
	owners := map[string][]string{}
	for _, imp := range with.pkgs[self].imports {
		group := "standard library"
		if p := with.pkgs[imp]; !p.std {
			group = "`" + p.module + "`"
		}
		seen := map[string]bool{}
		var walk func(string)
		walk = func(path string) {
			if seen[path] {
				return
			}
			seen[path] = true
			if added[path] && !slices.Contains(owners[path], group) {
				owners[path] = append(owners[path], group)
			}
			for _, next := range with.pkgs[path].imports {
				walk(next)
			}
		}
		walk(imp)
	}
	counts := map[string]*depRow{}
	for path := range added {
		by := "saidex itself"
		if path != self {
			g := slices.Clone(owners[path])
			slices.Sort(g)
			by = cmp.Or(strings.Join(g, " + "), "the program itself")
		}
		r := counts[by]
		if r == nil {
			r = &depRow{by: by}
			counts[by] = r
		}
		r.n++
		if with.pkgs[path].std {
			r.std++
		}
	}
	rows := make([]depRow, 0, len(counts))
	for _, r := range counts {
		rows = append(rows, *r)
	}
	slices.SortFunc(rows, func(a, b depRow) int {
		return cmp.Or(cmp.Compare(b.n, a.n), strings.Compare(a.by, b.by))
	})
	return rows
}

func met(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}

// goOut runs the go command in dir and returns its trimmed standard output.
func goOut(dir string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(stdout.String()), nil
}
