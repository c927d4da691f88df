// Package adapter is the reference PDPP MCP adapter: it turns a PDPP resource
// server's /v1 read API into the six-tool normal MCP read surface, over stdio
// or stateless Streamable HTTP. It is the target mcpcheck passes by default.
package adapter

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/adapter/rsclient"
	json "github.com/segmentio/encoding/json"
)

// ServerName is the serverInfo name of the reference adapter.
const ServerName = "pdpp-mcp"

// Version is set at build time with -ldflags; a `go install …@version`
// build reports its module version, and anything else "dev".
var Version = "dev"

func init() {
	if bi, ok := debug.ReadBuildInfo(); ok && Version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		Version = bi.Main.Version
	}
}

// Options configure an adapter. ProviderURL is required.
type Options struct {
	// ProviderURL is the RS base URL (the /v1 API lives under it).
	ProviderURL string
	// Token is the grant-scoped client token used when a request carries no
	// bearer of its own (stdio). Hosted HTTP always uses the caller's bearer.
	Token string
	// HTTPClient calls the RS. If nil, a client with rsclient.DefaultTimeout is used.
	HTTPClient *http.Client
	// Name overrides serverInfo.name. If empty, ServerName.
	Name string
	// Stdio marks the stdio transport; Main sets it for what it serves
	// over stdin and stdout.
	Stdio bool
	// Middleware wraps every MCP request the adapter's servers receive
	// (initialize, tools/list, tools/call, …), and the tool calls of the
	// search and read-field commands; the first is outermost. Empty: none.
	Middleware []mcp.Middleware
	// HostedMiddleware wraps the hosted surface (Handler) inside its Host
	// check; the first is outermost. Empty: none.
	HostedMiddleware []func(http.Handler) http.Handler
	// Tuning holds the adapter's knobs; its zero value is the default.
	Tuning Tuning
	// PublicOrigin is the origin clients reach the hosted endpoint at
	// ("https://mcp.example"), used in metadata, challenges and icons. If
	// empty, each request's own origin is used.
	PublicOrigin string
	// TrustForwarded takes the origin from X-Forwarded-Proto and
	// X-Forwarded-Host: set it only behind a proxy that sets them.
	TrustForwarded bool
	// AuthCacheTTL, when positive, lets an accepted bearer through for that
	// long without asking the RS again: one RS request saved per call, at
	// the cost of serving a revoked grant until the entry expires. Zero
	// (the default) validates every request's bearer against the RS.
	AuthCacheTTL time.Duration
	// ReadTimeout bounds reading one request's headers and body. Zero means
	// DefaultReadTimeout.
	ReadTimeout time.Duration
	// WriteTimeout bounds writing one answer, counted from the end of the
	// request's headers (HTTPServer only). Zero means DefaultWriteTimeout.
	WriteTimeout time.Duration
	// IdleTimeout closes a keep-alive connection idle that long
	// (HTTPServer only). Zero means DefaultIdleTimeout.
	IdleTimeout time.Duration
	// MaxConns caps open client connections; at the cap a new one evicts
	// the longest-quiet one, else one whose request is still arriving or
	// unauthenticated (HTTPServer only). Zero means DefaultMaxConns.
	MaxConns int
	// MaxConnsPerClient caps open connections from one client address (an
	// IPv4 address or IPv6 /64); past it a new one evicts that client's own
	// (HTTPServer only). Zero means half of MaxConns.
	MaxConnsPerClient int
	// MaxBodyBytes caps an /mcp request body; a larger one gets 413 before
	// anything in it runs. Zero means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// MaxHeaderBytes caps a request's headers; larger ones get 431
	// (HTTPServer only). Zero means DefaultMaxHeaderBytes.
	MaxHeaderBytes int
	// RefusalCacheTTL is how long a bearer the RS refused is refused again
	// without asking the RS. Zero means DefaultRefusalCacheTTL; negative
	// turns the cache off.
	RefusalCacheTTL time.Duration
}

// An Adapter serves the MCP surface for one RS.
type Adapter struct {
	hostedState
	opts Options
	tune Tuning // opts.Tuning with every default filled in
	rs   *rsclient.Client
	srv  *mcp.Server
	args map[string]*argSchema
}

// argsOf is a tool's argument validator.
func (a *Adapter) argsOf(tool string) *argSchema { return a.args[tool] }

// New builds the adapter and its MCP server.
func New(opts Options) (*Adapter, error) {
	rs, err := rsclient.New(opts.ProviderURL, opts.HTTPClient)
	if err != nil {
		return nil, err
	}
	a := &Adapter{opts: opts, tune: opts.Tuning.withDefaults(), rs: rs, args: map[string]*argSchema{}}
	for _, t := range surface() {
		args, err := compileArgs(t.schema)
		if err != nil {
			return nil, fmt.Errorf("tool %s: input schema: %w", t.name, err)
		}
		a.args[t.name] = args
	}
	a.srv = a.newServer(nil)
	return a, nil
}

// newServer builds an MCP server with the tool surface; icons go into
// serverInfo (the hosted endpoint names its origin's icon).
func (a *Adapter) newServer(icons []mcp.Icon) *mcp.Server {
	name := a.opts.Name
	if name == "" {
		name = ServerName
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: name, Title: "PDPP MCP reference adapter", Version: Version, Icons: icons},
		&mcp.ServerOptions{Instructions: Instructions, Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}})
	for _, t := range surface() {
		// Registered raw: the adapter validates arguments itself, so every
		// rejection is a typed error naming the argument (see args.go).
		srv.AddTool(t.tool(), recoverTool(withCaller(a.callTool)))
	}
	srv.AddReceivingMiddleware(a.opts.Middleware...)
	return srv
}

// callTool validates a tool call's arguments and runs it.
func (a *Adapter) callTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	name, in := req.Params.Name, req.Params.Arguments
	args := a.args[name]
	if args == nil {
		return adapterError("unsupported_tool", "tool "+name+" is not part of the normal read surface"), nil
	}
	if e := args.check(in); e != nil {
		return errorResult(e, ""), nil
	}
	return a.dispatch(ctx, req, name, in), nil
}

// callThroughMiddleware runs a tool call as an MCP server of this adapter
// would, Options.Middleware included: for the command-line tools, whose
// output shows what the MCP tools show.
func (a *Adapter) callThroughMiddleware(ctx context.Context, name string, in json.RawMessage) *mcp.CallToolResult {
	var h mcp.MethodHandler = func(ctx context.Context, _ string, req mcp.Request) (mcp.Result, error) {
		return recoverTool(a.callTool)(ctx, req.(*mcp.CallToolRequest))
	}
	for i := len(a.opts.Middleware) - 1; i >= 0; i-- {
		h = a.opts.Middleware[i](h)
	}
	res, err := h(ctx, "tools/call", &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: name, Arguments: in}})
	if r, ok := res.(*mcp.CallToolResult); ok && err == nil && r != nil {
		return r
	}
	if err == nil {
		err = errors.New("no tool result")
	}
	return errorResult(err, "")
}

// recoverTool turns a panic in a tool handler into a typed isError result.
// The SDK does not recover handler panics, so one bad RS answer would
// otherwise end the process and every caller's session with it.
func recoverTool(h mcp.ToolHandler) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		defer func() {
			if p := recover(); p != nil {
				msg := "the adapter failed on this call; other calls are unaffected"
				if re, ok := p.(runtime.Error); ok { // carries no caller data
					msg += " (" + re.Error() + ")"
				}
				res, err = adapterError("internal_error", msg), nil
			}
		}()
		return h(ctx, req)
	}
}

// Server returns the MCP server.
func (a *Adapter) Server() *mcp.Server { return a.srv }
