package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/internal/shellquote"
)

var servingRe = regexp.MustCompile(`serving (http://\S+/mcp)`)

// openReferenceChild starts the fixture RS and `<reference> serve` on a
// loopback port, and reaches it like a deployed server.
func openReferenceChild(ctx context.Context, spec conformance.TargetSpec, reference []string) (*subject, error) {
	local, rsURL, stopRS, err := conformance.StartFixtureRS(spec)
	if err != nil {
		return nil, err
	}
	rs := local.RS
	closers := []func(){stopRS}
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	args := append(append([]string(nil), reference[1:]...), "serve", "--addr", "127.0.0.1:0", "--provider-url", rsURL)
	cmd := exec.Command(reference[0], args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		closeAll()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		closeAll()
		return nil, fmt.Errorf("start the reference adapter: %w", err)
	}
	exited := make(chan struct{})
	closers = append(closers, func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := servingRe.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
				break
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	go func() { _ = cmd.Wait(); close(exited) }()
	timeout := spec.ConnectTimeout
	if timeout == 0 {
		timeout = conformance.DefaultConnectTimeout
	}
	var endpoint string
	select {
	case endpoint = <-found:
	case <-exited:
		closeAll()
		return nil, fmt.Errorf("the reference adapter exited before serving (%s)", cmd.ProcessState)
	case <-time.After(timeout):
		closeAll()
		return nil, fmt.Errorf("the reference adapter did not start serving within %s", timeout)
	}
	t, err := conformance.Open(ctx, conformance.TargetSpec{URL: endpoint, Token: rs.ClientToken(), ConnectTimeout: timeout})
	if err != nil {
		closeAll()
		return nil, err
	}
	closers = append(closers, t.Close)
	t.Description = "reference adapter (pdpp-mcp child process over loopback HTTP, fixture RS)"
	cs, closeCS, err := connect(ctx, endpoint, rs.ClientToken())
	if err != nil {
		closeAll()
		return nil, err
	}
	closers = append(closers, closeCS)
	return &subject{target: t, session: cs, rs: rs, rsURL: rsURL, pid: cmd.Process.Pid, endpoint: endpoint, token: rs.ClientToken(),
		close: func() { closeAll() }}, nil
}

// stdioSpec is how startup and the scale grant reach the target over
// stdio, or ok=false with the reason.
func stdioSpec(spec conformance.TargetSpec, o Options) (conformance.TargetSpec, bool, string) {
	switch {
	case spec.Kind() == conformance.KindStdio:
		return spec, true, ""
	case spec.Kind() == conformance.KindURL:
		return spec, false, "a --url target has no process or RS of mcpcheck's"
	case len(o.Reference) == 0:
		return spec, false, "the reference adapter runs in process; run the mcpcheck binary to measure it as a child"
	}
	words := make([]string, len(o.Reference))
	for i, w := range o.Reference {
		words[i] = shellquote.Quote(w)
	}
	s := spec
	s.Stdio = strings.Join(words, " ")
	return s, true, ""
}

// measureStartup starts the adapter over stdio o.StartupRuns times and
// times each from process start to the answered initialize.
func measureStartup(ctx context.Context, spec conformance.TargetSpec, o Options) (*Percentiles, []string) {
	if o.StartupRuns < 0 {
		return nil, nil
	}
	s, ok, why := stdioSpec(spec, o)
	if !ok {
		return nil, []string{"stdio startup: " + why}
	}
	var ds []time.Duration
	for range o.StartupRuns {
		t, err := conformance.Open(ctx, s)
		if err != nil {
			return nil, []string{"stdio startup: " + err.Error()}
		}
		ds = append(ds, t.Startup)
		t.Close()
	}
	p := percentiles(ds)
	return &p, nil
}

// measureScale times the compact schema on the scale grant and sizes the
// text a model reads.
func measureScale(ctx context.Context, spec conformance.TargetSpec, o Options) (*ScaleSchema, []string) {
	if o.Scale == "-" {
		return nil, nil
	}
	fx, err := conformance.LoadFixture(o.Scale)
	if err != nil {
		return nil, []string{"scale schema: " + err.Error()}
	}
	s, over := spec, TransportHTTP
	if spec.Kind() != conformance.KindReference || len(o.Reference) > 0 {
		over = TransportStdio
		var ok bool
		var why string
		if s, ok, why = stdioSpec(spec, o); !ok {
			return nil, []string{"scale schema: " + why}
		}
	}
	s.FixtureData = fx
	t, err := conformance.Open(ctx, s)
	if err != nil {
		return nil, []string{"scale schema: " + err.Error()}
	}
	defer t.Close()
	const warm, runs = 2, 20
	out := &ScaleSchema{Fixture: o.Scale, Transport: over}
	var ds []time.Duration
	for i := range warm + runs {
		start := time.Now()
		cctx, cancel := context.WithTimeout(ctx, o.CallTimeout)
		res, err := t.Session.CallTool(cctx, &mcp.CallToolParams{Name: "schema", Arguments: map[string]any{}})
		cancel()
		d := time.Since(start)
		if err != nil {
			return nil, []string{"scale schema: " + err.Error()}
		}
		if res.IsError {
			return nil, []string{"scale schema: " + toolText(res)}
		}
		if i < warm {
			continue
		}
		ds = append(ds, d)
		if out.Bytes == 0 {
			var text strings.Builder
			for _, c := range res.Content {
				if tc, ok := c.(*mcp.TextContent); ok {
					text.WriteString(tc.Text)
				}
			}
			out.Bytes = text.Len()
			out.Tokens, _ = conformance.CountTokens(text.String())
		}
	}
	out.Latency = percentiles(ds)
	return out, nil
}
