// Command pdpp-fake-rs serves mcpcheck's fixture PDPP resource server on a
// real listener and prints its URL and a client token.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/pdpp-connect/mcpcheck/fakers"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run prints `url=…` and `token=…` (and `owner_token=…` with --owner-token)
// on stdout, then serves until ctx ends.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pdpp-fake-rs", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	fixture := fs.String("fixture", fakers.DefaultFixture, "fixture data set: "+strings.Join(fakers.Fixtures(), ", "))
	owner := fs.Bool("owner-token", false, "also print the owner token")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	fx, err := fakers.LoadFixture(*fixture)
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-fake-rs: %v\n", err)
		return 2
	}
	rs := fakers.New(fx)
	url, shutdown, err := rs.Start(*addr)
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-fake-rs: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "url=%s\ntoken=%s\n", url, rs.ClientToken())
	if *owner {
		fmt.Fprintf(stdout, "owner_token=%s\n", rs.OwnerToken())
	}
	if f, ok := stdout.(*os.File); ok {
		_ = f.Sync()
	}
	fmt.Fprintf(stderr, "pdpp-fake-rs: serving fixture %s at %s\n", fx.Name, url)
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = shutdown(sctx)
	return 0
}
