package adapter

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/adapter/rsclient"
	json "github.com/segmentio/encoding/json"
)

// Exit codes of pdpp-mcp.
const (
	ExitOK          = 0
	ExitFailure     = 1
	ExitUsage       = 64
	ExitOwnerToken  = 77
	ExitCredentials = 78
)

// HelpText is what pdpp-mcp prints for --help.
const HelpText = `pdpp-mcp: the PDPP MCP reference adapter (read-only, grant-scoped).

Usage:
  pdpp-mcp --provider-url URL                          MCP over stdio
  pdpp-mcp serve --addr HOST:PORT --provider-url URL   stateless Streamable HTTP at /mcp
  pdpp-mcp search QUERY...                             search, with bounded evidence (see search --help)
  pdpp-mcp read-field --id ID --field PATH             read a bounded field window (see read-field --help)

Flags:
  --provider-url URL   PDPP resource server (env PDPP_PROVIDER_URL)
  --cache-root DIR     credential cache written by pdpp connect (env PDPP_CACHE_ROOT, default .pdpp)
  --server-name NAME   serverInfo name (env PDPP_MCP_SERVER_NAME)
  --addr HOST:PORT     listen address for serve (default 127.0.0.1:8080)
  --public-origin URL  origin clients use for serve, in metadata, challenges and icons
                       (env PDPP_MCP_PUBLIC_ORIGIN; default: each request's own)
  --trust-forwarded-headers
                       take the origin from the last X-Forwarded-Proto/Host values, the proxy's own
                       (only behind a proxy that sets them)
  --auth-cache-ttl D   serve: accept a bearer the RS accepted for D (such as 30s) without asking it
                       again; saves an RS request per call, but a revoked grant is served until D ends
                       (default 0: every request's bearer is validated)
  --read-timeout D     serve: a request's headers and body must arrive within D (default 10s)
  --write-timeout D    serve: an answer must be written within D of its request's headers (default 1m30s)
  --idle-timeout D     serve: close a keep-alive connection idle for D (default 30s)
  --max-conns N        serve: open connections at most; at N a new one evicts the one quiet longest,
                       else the oldest whose request is unfinished or unauthenticated (default 1024,
                       lowered to fit the open-file limit; an explicit N that does not fit is an error)
  --max-conns-per-client N
                       serve: open connections from one address (IPv4, or IPv6 /64) at most; past N a
                       new one evicts that address's own (default half of --max-conns; behind a
                       reverse proxy every client shares its address: set it to --max-conns)
  --max-body N         serve: largest /mcp request body in bytes; a larger one gets 413 (default 65536)
  --max-header N       serve: largest request header block in bytes; a larger one gets 431 (default 32768)
  --refused-bearer-ttl D
                       serve: refuse a bearer the RS refused again for D without asking the RS
                       (default 5s; 0 asks every time)
  --version            print the version
  -h, --help           show this help

Over stdio the grant-scoped client token comes from PDPP_CLIENT_TOKEN or the
credential cache; over HTTP each request's bearer is forwarded to the provider.
Owner and control-plane credentials are refused.
`

// An Env reads environment variables; os.Getenv in production.
type Env func(string) string

// A Command is the pdpp-mcp command line. Its zero value is the command
// as shipped (Main); a program that embeds the adapter may change its help
// text and the Options each subcommand builds.
type Command struct {
	// Help is printed for --help and after a usage error. Empty means
	// HelpText.
	Help string
	// Configure, when set, adjusts the Options of every subcommand after
	// its flags and environment are read and just before the adapter is
	// built; Options.Stdio says whether it serves stdio. Nil leaves them.
	Configure func(*Options)
}

// Main runs pdpp-mcp and returns its exit code. stdout carries MCP frames
// only; everything else goes to stderr.
func Main(ctx context.Context, args []string, getenv Env, stdin io.Reader, stdout io.Writer, stderr io.Writer) int {
	return Command{}.Run(ctx, args, getenv, stdin, stdout, stderr)
}

// Run runs the command and returns its exit code, as Main does.
func (c Command) Run(ctx context.Context, args []string, getenv Env, stdin io.Reader, stdout io.Writer, stderr io.Writer) int {
	if len(args) > 0 && (args[0] == "search" || args[0] == "read-field") {
		return c.runCLI(ctx, args[0], args[1:], getenv, stdout, stderr)
	}
	if path := getenv("PDPP_MCP_CPUPROFILE"); path != "" { // for BENCHMARKS.md: profile the real process under load
		if f, err := os.Create(path); err == nil && pprof.StartCPUProfile(f) == nil {
			defer func() { pprof.StopCPUProfile(); f.Close() }()
		}
	}
	serve := len(args) > 0 && args[0] == "serve"
	if serve {
		args = args[1:]
		tuneGC(getenv)
	}
	fs := flag.NewFlagSet("pdpp-mcp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		providerURL = fs.String("provider-url", getenv("PDPP_PROVIDER_URL"), "")
		cacheRoot   = fs.String("cache-root", firstOf(getenv("PDPP_CACHE_ROOT"), ".pdpp"), "")
		serverName  = fs.String("server-name", getenv("PDPP_MCP_SERVER_NAME"), "")
		addr        = fs.String("addr", "127.0.0.1:8080", "")
		publicOrig  = fs.String("public-origin", getenv("PDPP_MCP_PUBLIC_ORIGIN"), "")
		trustFwd    = fs.Bool("trust-forwarded-headers", false, "")
		authTTL     = fs.Duration("auth-cache-ttl", 0, "")
		readTO      = fs.Duration("read-timeout", DefaultReadTimeout, "")
		writeTO     = fs.Duration("write-timeout", DefaultWriteTimeout, "")
		idleTO      = fs.Duration("idle-timeout", DefaultIdleTimeout, "")
		maxConns    = fs.Int("max-conns", DefaultMaxConns, "")
		perClient   = fs.Int("max-conns-per-client", 0, "")
		maxBody     = fs.Int64("max-body", DefaultMaxBodyBytes, "")
		maxHeader   = fs.Int("max-header", DefaultMaxHeaderBytes, "")
		refusedTTL  = fs.Duration("refused-bearer-ttl", DefaultRefusalCacheTTL, "")
		version     = fs.Bool("version", false, "")
	)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stderr, c.usage())
			return ExitOK
		}
		fmt.Fprintf(stderr, "pdpp-mcp: %v\n%s", err, c.usage())
		return ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "pdpp-mcp: unexpected argument %q\n", fs.Arg(0))
		return ExitUsage
	}
	if *version {
		fmt.Fprintln(stderr, "pdpp-mcp "+Version)
		return ExitOK
	}
	// Refuse before any credential is loaded: the owner value is never read
	// as a credential (seed 001).
	for _, k := range []string{"PDPP_OWNER_TOKEN", "PDPP_OWNER_SESSION_COOKIE"} {
		if getenv(k) != "" {
			fmt.Fprintf(stderr, "pdpp-mcp: Refusing to start: owner credentials are present in the environment (%s). The MCP adapter only uses grant-scoped client tokens.\n", k)
			return ExitOwnerToken
		}
	}
	if *providerURL == "" {
		fmt.Fprintln(stderr, "pdpp-mcp: missing --provider-url (or PDPP_PROVIDER_URL)")
		return ExitUsage
	}
	u, err := rsclient.NormalizeURL(*providerURL)
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp: %v\n", err)
		return ExitUsage
	}
	if *publicOrig != "" {
		po, err := rsclient.NormalizeURL(*publicOrig)
		if err != nil || po.Path != "" {
			fmt.Fprintf(stderr, "pdpp-mcp: --public-origin %q: want an origin such as https://mcp.example\n", *publicOrig)
			return ExitUsage
		}
		*publicOrig = po.String()
	}
	if *authTTL < 0 {
		fmt.Fprintf(stderr, "pdpp-mcp: --auth-cache-ttl %s: want a duration of 0 or more\n", *authTTL)
		return ExitUsage
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"read-timeout", *readTO}, {"write-timeout", *writeTO}, {"idle-timeout", *idleTO}} {
		if d.v <= 0 {
			fmt.Fprintf(stderr, "pdpp-mcp: --%s %s: want a positive duration\n", d.name, d.v)
			return ExitUsage
		}
	}
	if *maxConns < 1 {
		fmt.Fprintf(stderr, "pdpp-mcp: --max-conns %d: want 1 or more\n", *maxConns)
		return ExitUsage
	}
	if *perClient < 0 {
		fmt.Fprintf(stderr, "pdpp-mcp: --max-conns-per-client %d: want 1 or more (0: half of --max-conns)\n", *perClient)
		return ExitUsage
	}
	if serve {
		explicit := false
		fs.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "max-conns" })
		fits, warning, err := fitConnsToFileLimit(*maxConns, explicit, openFileLimit())
		if err != nil {
			fmt.Fprintf(stderr, "pdpp-mcp: %v\n", err)
			return ExitUsage
		}
		if warning != "" {
			fmt.Fprintf(stderr, "pdpp-mcp: warning: %s\n", warning)
		}
		*maxConns = fits
	}
	if *maxBody < 1024 {
		fmt.Fprintf(stderr, "pdpp-mcp: --max-body %d: want 1024 bytes or more\n", *maxBody)
		return ExitUsage
	}
	if *maxHeader < 4096 {
		fmt.Fprintf(stderr, "pdpp-mcp: --max-header %d: want 4096 bytes or more\n", *maxHeader)
		return ExitUsage
	}
	if *refusedTTL < 0 {
		fmt.Fprintf(stderr, "pdpp-mcp: --refused-bearer-ttl %s: want a duration of 0 or more\n", *refusedTTL)
		return ExitUsage
	}
	if *refusedTTL == 0 {
		*refusedTTL = -1 // Options: zero is the default, negative is off
	}
	opts := Options{ProviderURL: u.String(), Name: *serverName, Stdio: !serve, PublicOrigin: *publicOrig,
		TrustForwarded: *trustFwd, AuthCacheTTL: *authTTL, ReadTimeout: *readTO, WriteTimeout: *writeTO, IdleTimeout: *idleTO,
		MaxConns: *maxConns, MaxConnsPerClient: *perClient, MaxBodyBytes: *maxBody, MaxHeaderBytes: *maxHeader,
		RefusalCacheTTL: *refusedTTL}
	if serve {
		c.configure(&opts)
		return runServe(ctx, opts, *addr, stderr)
	}
	token, code, err := loadToken(getenv, *cacheRoot, u.Host)
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp: %v\n", err)
		return code
	}
	opts.Token = token
	c.configure(&opts)
	a, err := New(opts)
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp: %v\n", err)
		return ExitUsage
	}
	// An owner or control-plane bearer in the client token's place is
	// refused at setup (seed 001), as the hosted endpoint refuses it per
	// request; an RS that cannot say what the bearer is does not stop the
	// start.
	if v := a.probeBearer(ctx, token); v.status == http.StatusForbidden || v.status == 0 && v.kind != "" && !a.serves(v.kind) {
		fmt.Fprintf(stderr, "pdpp-mcp: Refusing to start: %s\n", clientTokenOnly)
		return ExitOwnerToken
	}
	fmt.Fprintf(stderr, "pdpp-mcp: serving stdio for %s\n", u.String())
	if err := a.ServeStdio(ctx, io.NopCloser(stdin), nopWriteCloser{stdout}); err != nil && ctx.Err() == nil {
		fmt.Fprintf(stderr, "pdpp-mcp: %v\n", err)
		return ExitFailure
	}
	return ExitOK
}

func (c Command) usage() string { return firstOf(c.Help, HelpText) }

func (c Command) configure(opts *Options) {
	if c.Configure != nil {
		c.Configure(opts)
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// ServeStdio serves newline-delimited JSON-RPC on in/out until in closes.
func (a *Adapter) ServeStdio(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	err := a.srv.Run(ctx, &mcp.IOTransport{Reader: in, Writer: out})
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

func runServe(ctx context.Context, opts Options, addr string, stderr io.Writer) int {
	a, err := New(opts)
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp: %v\n", err)
		return ExitUsage
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-mcp: listen %s: %v\n", addr, err)
		return ExitFailure
	}
	srv := a.HTTPServer()
	fmt.Fprintf(stderr, "pdpp-mcp: serving http://%s%s for %s (setup page %s)\n", ln.Addr(), MCPPath, opts.ProviderURL, SetupPath)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		return ExitOK
	case err := <-errc:
		fmt.Fprintf(stderr, "pdpp-mcp: %v\n", err)
		return ExitFailure
	}
}

// tuneGC trades memory the hosted adapter has to spare for CPU: each call
// allocates short-lived JSON buffers (the SDK alone several 32 KiB decode
// buffers), and at the default GOGC the collector took a sixth of the CPU
// under load. A soft memory limit keeps the heap, and so RSS, bounded
// (BENCHMARKS.md). GOGC and GOMEMLIMIT in the environment still win.
func tuneGC(getenv Env) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(40 << 20)
	}
}

var hostFileRe = regexp.MustCompile(`[^a-zA-Z0-9.-]`)

// loadToken reads the client token from PDPP_CLIENT_TOKEN, else from the
// credential cache <root>/clients/<host>.json. Owner-kind credentials are refused.
func loadToken(getenv Env, cacheRoot, host string) (string, int, error) {
	if t := strings.TrimSpace(getenv("PDPP_CLIENT_TOKEN")); t != "" {
		return t, ExitOK, nil
	}
	path := filepath.Join(cacheRoot, "clients", hostFileRe.ReplaceAllString(host, "_")+".json")
	data, err := os.ReadFile(path)
	if err != nil {
		return "", ExitCredentials, fmt.Errorf("not_connected: no PDPP_CLIENT_TOKEN and no scoped credential cached at %s; run `pdpp connect` first", path)
	}
	var cached struct {
		Credential map[string]any `json:"credential"`
	}
	if err := json.Unmarshal(data, &cached); err != nil {
		return "", ExitCredentials, fmt.Errorf("credential_invalid: %s is not valid JSON", path)
	}
	for _, k := range []string{"pdpp_token_kind", "token_kind", "kind", "role"} {
		if s, _ := cached.Credential[k].(string); strings.EqualFold(s, "owner") {
			return "", ExitOwnerToken, fmt.Errorf("owner_token_refused: %s holds an owner credential; MCP needs a grant-scoped client token", path)
		}
	}
	tok, _ := cached.Credential["access_token"].(string)
	if tok == "" {
		return "", ExitCredentials, fmt.Errorf("credential_invalid: %s has no credential.access_token", path)
	}
	if exp, _ := cached.Credential["expires_at"].(string); exp != "" {
		if t, err := time.Parse(time.RFC3339, exp); err == nil && !t.After(time.Now()) {
			return "", ExitCredentials, fmt.Errorf("credential_expired: the credential in %s expired at %s", path, exp)
		}
	}
	return tok, ExitOK, nil
}
