package adapter

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/adapter/rsclient"
	"github.com/pdpp-connect/mcpcheck/internal/shellquote"
	json "github.com/segmentio/encoding/json"
)

// The CLI reads the same evidence ladder as the MCP tools (seed 004, REST
// and CLI parity): `search` shows each hit's bounded evidence and prints the
// exact `read-field` command that reads its field window.

const cliHelp = `pdpp-mcp search: search granted records and show bounded evidence.
pdpp-mcp read-field: read a bounded window of one text field.

Usage:
  pdpp-mcp search [--provider-url URL] [--connection-id ID] [--limit N] QUERY...
  pdpp-mcp read-field [--provider-url URL] --id ID --field PATH [--connection-id ID]
                      [--q TEXT [--before-chars N] [--after-chars N]] [--offset-chars N] [--limit-chars N]
                      [--format text|json]

The token comes from PDPP_CLIENT_TOKEN or the credential cache, as for stdio.
`

var firstMarkRe = regexp.MustCompile(`<mark>([^<]+)</mark>`)

func (c Command) runCLI(ctx context.Context, sub string, args []string, getenv Env, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pdpp-mcp "+sub, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		providerURL = fs.String("provider-url", getenv("PDPP_PROVIDER_URL"), "")
		cacheRoot   = fs.String("cache-root", firstOf(getenv("PDPP_CACHE_ROOT"), ".pdpp"), "")
		connID      = fs.String("connection-id", "", "")
		limit       = fs.Int("limit", 5, "")
		id          = fs.String("id", "", "")
		field       = fs.String("field", "", "")
		qText       = fs.String("q", "", "")
		format      = fs.String("format", "text", "")
		ints        = map[string]*int{}
	)
	for _, k := range []string{"offset-chars", "limit-chars", "before-chars", "after-chars"} {
		ints[k] = fs.Int(k, -1, "")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stderr, cliHelp)
			return ExitOK
		}
		fmt.Fprintf(stderr, "pdpp-mcp %s: %v\n%s", sub, err, cliHelp)
		return ExitUsage
	}
	if *format != "text" && *format != "json" {
		fmt.Fprintf(stderr, "pdpp-mcp %s: --format must be text or json\n", sub)
		return ExitUsage
	}
	u, err := rsclient.NormalizeURL(*providerURL)
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp %s: %v (pass --provider-url or PDPP_PROVIDER_URL)\n", sub, err)
		return ExitUsage
	}
	token, code, err := loadToken(getenv, *cacheRoot, u.Host)
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp: %v\n", err)
		return code
	}
	opts := Options{ProviderURL: u.String(), Token: token}
	c.configure(&opts)
	a, err := New(opts)
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp: %v\n", err)
		return ExitUsage
	}
	var tool string
	in := map[string]any{}
	switch sub {
	case "search":
		if fs.NArg() == 0 {
			fmt.Fprintf(stderr, "pdpp-mcp search: missing QUERY\n%s", cliHelp)
			return ExitUsage
		}
		tool, in["q"], in["limit"] = "search", strings.Join(fs.Args(), " "), *limit
	default:
		if *id == "" || *field == "" || fs.NArg() > 0 {
			fmt.Fprintf(stderr, "pdpp-mcp read-field: want --id and --field and no other arguments\n%s", cliHelp)
			return ExitUsage
		}
		tool, in["id"], in["field_path"] = "read_record_field", *id, *field
		if *qText != "" {
			in["q"] = *qText
		}
		for k, v := range ints {
			if *v >= 0 {
				in[strings.ReplaceAll(k, "-", "_")] = *v
			}
		}
	}
	if *connID != "" {
		in["connection_id"] = *connID
	}
	raw, _ := json.Marshal(in)
	if e := a.argsOf(tool).check(raw); e != nil {
		fmt.Fprintf(stderr, "pdpp-mcp %s: %s\n", sub, e.Message)
		return ExitUsage
	}
	res := a.callThroughMiddleware(ctx, tool, raw)
	if res.IsError {
		fmt.Fprintf(stderr, "pdpp-mcp %s: %s\n", sub, text(res))
		return ExitFailure
	}
	switch {
	case *format == "json":
		out, _ := json.MarshalIndent(res.StructuredContent, "", "  ")
		fmt.Fprintln(stdout, string(out))
	case sub == "search":
		printSearch(stdout, res, u.String(), &a.tune)
	default:
		fmt.Fprintln(stdout, text(res))
	}
	return ExitOK
}

func text(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			return t.Text
		}
	}
	return ""
}

// printSearch lists hits with their evidence and, for each evidence
// excerpt, the command that reads a bounded window around the match.
func printSearch(w io.Writer, res *mcp.CallToolResult, providerURL string, t *Tuning) {
	var sc struct {
		Results []searchResult `json:"results"`
	}
	// Marshalled again: middleware may have rewritten structuredContent.
	raw, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(raw, &sc)
	results := sc.Results
	if len(results) == 0 {
		fmt.Fprintln(w, "no hits")
		return
	}
	for i, r := range results {
		fmt.Fprintf(w, "%d. %s  %s\n", i+1, r.ID, r.Title)
		for _, e := range r.Evidence {
			fmt.Fprintf(w, "   evidence %s (%s): %s\n", e.FieldPath, e.PreviewStatus, ellipsis(t.Ellipsis).centerMarked(e.PreviewText, 160))
			cmd := []string{"pdpp-mcp", "read-field", "--provider-url", providerURL, "--id", r.ID, "--field", e.FieldPath}
			if mk := firstMarkRe.FindStringSubmatch(e.PreviewText); mk != nil {
				cmd = append(cmd, "--q", mk[1], "--before-chars", "200", "--after-chars", "200")
			} else {
				cmd = append(cmd, "--limit-chars", strconv.Itoa(t.FieldWindow))
			}
			fmt.Fprintf(w, "   read: %s\n", shellquote.Join(cmd))
		}
	}
}
