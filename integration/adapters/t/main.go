// Command pdpp-mcp-adapter is a grant-scoped PDPP MCP adapter.
//
//	pdpp-mcp-adapter [stdio] [flags]   MCP over stdin/stdout (token from the environment)
//	pdpp-mcp-adapter serve [flags]     MCP Streamable HTTP on /mcp (token per request)
//	pdpp-mcp-adapter version
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"example.com/pdppadapter-t/internal/adapter"
	"example.com/pdppadapter-t/internal/hosted"
)

const usage = `pdpp-mcp-adapter — grant-scoped PDPP MCP adapter (read-only)

Usage:
  pdpp-mcp-adapter [stdio] [--rs-url URL] [--token-file PATH]
  pdpp-mcp-adapter serve [--listen ADDR] [--rs-url URL] [--path /mcp] [--public-url URL]
  pdpp-mcp-adapter version

Environment (flags win):
  PDPP_RS_URL             resource server base URL, e.g. https://rs.example
  PDPP_CLIENT_TOKEN       stdio only: the grant-scoped PDPP client token
  PDPP_CLIENT_TOKEN_FILE  stdio only: file holding the client token
  PDPP_MCP_LISTEN         serve only: listen address (default 127.0.0.1:8765)
  PDPP_MCP_PUBLIC_URL     serve only: external origin used in auth challenges
  PDPP_MCP_LOG_LEVEL      debug | info | warn | error (default warn; logs go to stderr)

Owner (self-export) and control-plane bearers are refused in both modes.
`

func main() {
	args := os.Args[1:]
	cmd := "stdio"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	var err error
	switch cmd {
	case "stdio":
		err = runStdio(args)
	case "serve":
		err = runServe(args)
	case "version":
		fmt.Println(adapter.Name, adapter.Version)
	case "help":
		fmt.Print(usage)
	default:
		fmt.Fprintf(os.Stderr, "unknown command %q\n\n%s", cmd, usage)
		os.Exit(2)
	}
	if err != nil {
		var ee exitError
		if errors.As(err, &ee) {
			fmt.Fprintln(os.Stderr, "pdpp-mcp-adapter:", ee.msg)
			os.Exit(ee.code)
		}
		fmt.Fprintln(os.Stderr, "pdpp-mcp-adapter:", err)
		os.Exit(1)
	}
}

type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }

func envOr(name, def string) string {
	if v := strings.TrimSpace(os.Getenv(name)); v != "" {
		return v
	}
	return def
}

func newLogger(level string) *slog.Logger {
	var l slog.Level
	switch strings.ToLower(level) {
	case "debug":
		l = slog.LevelDebug
	case "info":
		l = slog.LevelInfo
	case "error":
		l = slog.LevelError
	default:
		l = slog.LevelWarn
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: l}))
}

func readToken(flagToken, flagFile string) (string, error) {
	if flagToken != "" {
		return strings.TrimSpace(flagToken), nil
	}
	file := flagFile
	if file == "" {
		file = envOr("PDPP_CLIENT_TOKEN_FILE", "")
	}
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return "", exitError{2, fmt.Sprintf("reading token file: %v", err)}
		}
		return strings.TrimSpace(string(b)), nil
	}
	return envOr("PDPP_CLIENT_TOKEN", ""), nil
}

func runStdio(args []string) error {
	fs := flag.NewFlagSet("stdio", flag.ContinueOnError)
	rsURL := fs.String("rs-url", envOr("PDPP_RS_URL", ""), "PDPP resource server base URL")
	tokenFile := fs.String("token-file", "", "file holding the grant-scoped client token (else PDPP_CLIENT_TOKEN_FILE / PDPP_CLIENT_TOKEN)")
	token := fs.String("token", "", "grant-scoped client token (prefer PDPP_CLIENT_TOKEN: flags are visible to other processes)")
	timeout := fs.Duration("rs-timeout", 30*time.Second, "timeout for one resource server request")
	logLevel := fs.String("log-level", envOr("PDPP_MCP_LOG_LEVEL", "warn"), "log level (stderr)")
	fs.Usage = func() { fmt.Fprint(os.Stderr, usage) }
	if err := fs.Parse(args); err != nil {
		return exitError{2, err.Error()}
	}
	if *rsURL == "" {
		return exitError{2, "no resource server URL: set PDPP_RS_URL or --rs-url"}
	}
	tok, err := readToken(*token, *tokenFile)
	if err != nil {
		return err
	}
	if tok == "" {
		return exitError{2, "no grant-scoped client token: set PDPP_CLIENT_TOKEN (or PDPP_CLIENT_TOKEN_FILE / --token-file)"}
	}
	log := newLogger(*logLevel)
	a, err := adapter.New(adapter.Config{RSURL: *rsURL, RSTimeout: *timeout, Logger: log})
	if err != nil {
		return exitError{2, err.Error()}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Refuse owner / invalid credentials before serving anything.
	vctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	_, verr := a.VerifyToken(vctx, tok)
	cancel()
	if verr != nil {
		var ve *adapter.VerifyError
		if errors.As(verr, &ve) && (ve.Status == 401 || ve.Status == 403) {
			return exitError{3, fmt.Sprintf("refusing to start: %s (%s)", ve.Message, ve.Code)}
		}
		// RS unreachable: start anyway; every tool call re-verifies first.
		log.Warn("could not verify the token yet; tool calls will verify it first", "error", verr)
	}
	srv := a.NewServer(adapter.StaticToken(tok))
	if err := srv.Run(ctx, &mcp.StdioTransport{}); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

func runServe(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	rsURL := fs.String("rs-url", envOr("PDPP_RS_URL", ""), "PDPP resource server base URL")
	listen := fs.String("listen", envOr("PDPP_MCP_LISTEN", "127.0.0.1:8765"), "listen address (host:port; port 0 picks a free port)")
	path := fs.String("path", "/mcp", "MCP endpoint path")
	public := fs.String("public-url", envOr("PDPP_MCP_PUBLIC_URL", ""), "external origin for auth challenges (default: from the Host header)")
	timeout := fs.Duration("rs-timeout", 30*time.Second, "timeout for one resource server request")
	logLevel := fs.String("log-level", envOr("PDPP_MCP_LOG_LEVEL", "warn"), "log level (stderr)")
	fs.Usage = func() { fmt.Fprint(os.Stderr, usage) }
	if err := fs.Parse(args); err != nil {
		return exitError{2, err.Error()}
	}
	if *rsURL == "" {
		return exitError{2, "no resource server URL: set PDPP_RS_URL or --rs-url"}
	}
	log := newLogger(*logLevel)
	if os.Getenv("PDPP_CLIENT_TOKEN") != "" || os.Getenv("PDPP_CLIENT_TOKEN_FILE") != "" {
		log.Warn("PDPP_CLIENT_TOKEN(_FILE) is ignored by serve: each MCP request must carry its own Authorization: Bearer token")
	}
	a, err := adapter.New(adapter.Config{RSURL: *rsURL, RSTimeout: *timeout, Logger: log})
	if err != nil {
		return exitError{2, err.Error()}
	}
	h := hosted.Handler(hosted.Options{Path: *path, PublicURL: *public, Adapter: a, Logger: log})
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return exitError{2, fmt.Sprintf("listen %s: %v", *listen, err)}
	}
	p := *path
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	// Machine-readable address line (useful with --listen 127.0.0.1:0).
	fmt.Fprintf(os.Stderr, "pdpp-mcp-adapter: serving MCP at http://%s%s\n", ln.Addr().String(), p)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 15 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	}
}
