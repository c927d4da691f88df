// Command pdpp-fake-rs serves mcpcheck's fixture PDPP resource server on a
// real listener and prints its URL and tokens.
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

// run prints `url=…`, `token=…` and `owner_token=…` on stdout, with
// --profile real one `token_<connector>=…` per connector, and
// `control_url=…` and `control_token=…` unless --no-control, then serves
// until ctx ends.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pdpp-fake-rs", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	fixture := fs.String("fixture", fakers.DefaultFixture, "data set: "+strings.Join(fakers.Fixtures(), ", ")+", or scale:C,S,F,R")
	seed := fs.Uint64("seed", 1, "seed for generated values; the same seed gives the same data")
	scale := fs.String("scale", "", "shorthand for --fixture scale:CONNECTORS,STREAMS,FIELDS,RECORDS")
	var sp fakers.ScaleSpec
	fs.IntVar(&sp.Connectors, "connectors", 0, "scale fixture: connectors (one connection each)")
	fs.IntVar(&sp.Streams, "streams", 0, "scale fixture: streams per connector")
	fs.IntVar(&sp.Fields, "fields", 0, "scale fixture: fields per stream")
	fs.IntVar(&sp.Records, "records", 0, "scale fixture: records per stream")
	noControl := fs.Bool("no-control", false, "do not mount the control plane ("+fakers.ControlPrefix+": request log, data, faults, tokens)")
	spec := fs.Bool("spec-client-reads", false, "client tokens see live capabilities and may filter/expand, as the spec says (--profile spec)")
	profile := fs.String("profile", "", "how client tokens read: digest (the default: the implementation's view, docs/RS-CONTRACT.md), "+
		"spec (as --spec-client-reads), or real (as the reference PDPP RS does: one connector per client token, no capabilities, its errors)")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	name := *fixture
	switch {
	case *scale != "":
		name = "scale:" + *scale
	case sp.Connectors != 0 || sp.Streams != 0 || sp.Fields != 0 || sp.Records != 0:
		name = fmt.Sprintf("scale:%d,%d,%d,%d", sp.Connectors, sp.Streams, sp.Fields, sp.Records)
	}
	fx, err := fakers.LoadFixtureSeed(name, *seed)
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-fake-rs: %v\n", err)
		return 2
	}
	switch *profile {
	case "", "digest":
		fx.SpecClientReads = *spec
	case "spec":
		fx.SpecClientReads = true
	case "real":
		if *spec {
			fmt.Fprintln(stderr, "pdpp-fake-rs: --spec-client-reads contradicts --profile real")
			return 2
		}
		fx.RealRS = true
	default:
		fmt.Fprintf(stderr, "pdpp-fake-rs: --profile %q: want digest, spec or real\n", *profile)
		return 2
	}
	rs := fakers.New(fx)
	var controlToken string
	if !*noControl {
		if controlToken, err = rs.EnableControl(); err != nil {
			fmt.Fprintf(stderr, "pdpp-fake-rs: %v\n", err)
			return 1
		}
	}
	url, shutdown, err := rs.Start(*addr)
	if err != nil {
		fmt.Fprintf(stderr, "pdpp-fake-rs: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "url=%s\ntoken=%s\nowner_token=%s\n", url, rs.ClientToken(), rs.OwnerToken())
	if fx.RealRS {
		for _, c := range fx.Connectors {
			fmt.Fprintf(stdout, "token_%s=%s\n", c.Key, rs.ClientTokenFor(c.Key))
		}
	}
	if controlToken != "" {
		fmt.Fprintf(stdout, "control_url=%s%s\ncontrol_token=%s\n", url, fakers.ControlPrefix, controlToken)
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
