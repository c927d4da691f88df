// Command mcp-authproxy is a loopback reverse proxy that adds
// "Authorization: Bearer <token>" to every request whose Host is a
// loopback name. It lets MCP tools that
// have no auth flags (the official conformance suite) reach an adapter that
// requires a bearer.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// tokenEnv names the environment variable that holds the bearer, so the
// token never appears in a process listing.
const tokenEnv = "MCP_AUTHPROXY_TOKEN"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run prints `url=<proxy URL with the target's path>` on stdout, then
// proxies until ctx ends. Exit codes: 0 done, 1 runtime failure, 2 usage.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcp-authproxy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: %s=TOKEN mcp-authproxy --target URL [--addr 127.0.0.1:0]\n       mcp-authproxy --target URL --token-file FILE\n\n", tokenEnv)
		fs.PrintDefaults()
	}
	addr := fs.String("addr", "127.0.0.1:0", "loopback address to listen on")
	target := fs.String("target", "", "MCP endpoint to forward to, e.g. http://127.0.0.1:8080/mcp")
	tokenFile := fs.String("token-file", "", "file holding the bearer token (default $"+tokenEnv+")")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	cfg, err := parseConfig(*addr, *target, *tokenFile, fs.Args(), getenv)
	if err != nil {
		fmt.Fprintf(stderr, "mcp-authproxy: %v\n", err)
		return 2
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		fmt.Fprintf(stderr, "mcp-authproxy: %v\n", err)
		return 1
	}
	srv := &http.Server{Handler: loopbackHostsOnly(newProxy(cfg.target, cfg.token)), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "url=http://%s%s\n", ln.Addr(), cfg.target.EscapedPath())
	fmt.Fprintf(stderr, "mcp-authproxy: forwarding http://%s to %s\n", ln.Addr(), cfg.target.Redacted())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		return 0
	case err := <-errc:
		fmt.Fprintf(stderr, "mcp-authproxy: %v\n", err)
		return 1
	}
}

type config struct {
	addr   string
	target *url.URL
	token  string
}

// parseConfig validates the flags. The proxy only listens on loopback: it
// hands out a credential to anyone who can connect.
func parseConfig(addr, target, tokenFile string, rest []string, getenv func(string) string) (config, error) {
	if len(rest) > 0 {
		return config{}, fmt.Errorf("unexpected argument %q", rest[0])
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return config{}, fmt.Errorf("--addr %q: %v", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return config{}, fmt.Errorf("--addr %q: want a loopback address; the proxy adds a credential to every request", addr)
	}
	if target == "" {
		return config{}, errors.New("missing --target")
	}
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return config{}, fmt.Errorf("--target %q: want an http:// or https:// URL", target)
	}
	token := strings.TrimSpace(getenv(tokenEnv))
	if tokenFile != "" {
		data, err := os.ReadFile(tokenFile)
		if err != nil {
			return config{}, fmt.Errorf("--token-file: %w", err)
		}
		token = strings.TrimSpace(string(data))
	}
	if token == "" || strings.ContainsAny(token, "\r\n") {
		return config{}, fmt.Errorf("want one non-empty token line in --token-file or $%s", tokenEnv)
	}
	return config{addr: addr, target: u, token: token}, nil
}

// loopbackHostsOnly refuses, with 421 and without forwarding, a request
// whose Host is not localhost or a loopback IP (with any port): a page
// whose name an attacker rebinds to 127.0.0.1 (DNS rebinding) reaches the
// listener with its own name as Host, and must not get the bearer added.
func loopbackHostsOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !isLoopbackHost(r.Host) {
			w.Header().Set("Connection", "close")
			http.Error(w, "mcp-authproxy forwards only requests whose Host is localhost, 127.0.0.1 or [::1] (DNS-rebinding protection)", http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// isLoopbackHost reports whether a Host header names localhost or a
// loopback IP, with an optional port.
func isLoopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	} else if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		host = host[1 : len(host)-1]
	}
	if strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Zone() == "" && ip.IsLoopback()
}

// newProxy forwards every request to target's origin unchanged except for
// the Authorization header. It keeps the client's Host header, so the
// adapter's DNS-rebinding protection still sees what the client sent.
func newProxy(target *url.URL, token string) *httputil.ReverseProxy {
	origin := &url.URL{Scheme: target.Scheme, Host: target.Host}
	return &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(origin)
			r.Out.Host = r.In.Host
			r.Out.Header.Set("Authorization", "Bearer "+token)
		},
		FlushInterval: -1, // stream SSE responses as they come
	}
}
