package bench

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/internal/sameorigin"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// subject is what a measurement talks to.
type subject struct {
	target  *conformance.Target // for tools/list, footprint and (stdio) the session
	session *mcp.ClientSession  // the session sequential calls go through
	rs      *fakers.RS          // mcpcheck's fixture RS behind the adapter, if any
	rsURL   string
	pid     int // the adapter's process, if a child
	close   func()
	timeout time.Duration // bound on each tool call

	// endpoint and token reach an HTTP target, where load goes through
	// raw sessions, one per worker; stdio workers share the one session.
	endpoint, token string
	hc              *http.Client
	pool            []*rawSession
}

// An invoker makes one fixed tool call.
type invoker func(ctx context.Context) error

// invokers returns n invokers of c for n concurrent workers.
func (s *subject) invokers(ctx context.Context, c call, n int) ([]invoker, error) {
	out := make([]invoker, n)
	if s.endpoint == "" {
		for i := range out {
			out[i] = func(ctx context.Context) error { return s.invoke(ctx, c) }
		}
		return out, nil
	}
	if s.hc == nil {
		tr := &http.Transport{MaxIdleConns: 1024, MaxIdleConnsPerHost: 1024}
		s.hc = &http.Client{Transport: tr, CheckRedirect: sameorigin.CheckRedirect}
		prev := s.close
		s.close = func() { tr.CloseIdleConnections(); prev() }
	}
	for len(s.pool) < n {
		rs, err := dialRaw(ctx, s.hc, s.endpoint, s.token)
		if err != nil {
			return nil, err
		}
		s.pool = append(s.pool, rs)
	}
	body := newCallBody(c)
	for i := range out {
		rs := s.pool[i]
		out[i] = func(ctx context.Context) error {
			ctx, cancel := context.WithTimeout(ctx, s.timeout)
			defer cancel()
			return rs.call(ctx, body)
		}
	}
	return out, nil
}

// open reaches the target for load. The reference adapter runs as a child
// `pdpp-mcp serve` when o.Reference is set, so its RSS is its own.
func open(ctx context.Context, spec conformance.TargetSpec, o Options) (*subject, error) {
	description := ""
	if spec.Kind() == conformance.KindReference {
		switch {
		case o.ReferenceTransport == TransportStdio && len(o.Reference) == 0:
			return nil, &conformance.TargetError{Unreachable: true, Reason: "the in-process reference adapter serves HTTP only; run the mcpcheck binary to measure it over stdio"}
		case o.ReferenceTransport == TransportStdio:
			spec, _, _ = stdioSpec(spec, o)
			description = "reference adapter (pdpp-mcp child process over stdio, fixture RS)"
		case len(o.Reference) > 0:
			return openReferenceChild(ctx, spec, o.Reference)
		}
	}
	t, err := conformance.Open(ctx, spec)
	if err != nil {
		return nil, err
	}
	if description != "" {
		t.Description = description
	}
	sub := &subject{target: t, session: t.Session, close: t.Close}
	if c, ok := conformance.As[conformance.ControlledRS](t); ok {
		sub.rsURL = c.RSURL()
		if l, ok := c.FixtureRS().(*conformance.LocalRS); ok { // the load run resizes the log of an in-process RS only
			sub.rs = l.RS
		}
	}
	if p, ok := conformance.As[conformance.Process](t); ok {
		sub.pid = p.PID()
	}
	if h, ok := conformance.As[conformance.HostedEndpoint](t); ok { // a lean client of its own: no wire tap, a connection pool sized for the load
		cs, closeCS, err := connect(ctx, h.MCPURL(), t.BearerToken())
		if err != nil {
			t.Close()
			return nil, err
		}
		sub.session, sub.endpoint, sub.token = cs, h.MCPURL(), t.BearerToken()
		sub.close = func() { closeCS(); t.Close() }
	}
	return sub, nil
}

// transportOf is how a spec's target is reached under o.
func transportOf(spec conformance.TargetSpec, o Options) Transport {
	if spec.Kind() == conformance.KindStdio || spec.Kind() == conformance.KindReference && o.ReferenceTransport == TransportStdio {
		return TransportStdio
	}
	return TransportHTTP
}

// connect opens a plain Streamable HTTP client session with a pool large
// enough that concurrency 64 reuses connections instead of dialling.
func connect(ctx context.Context, endpoint, token string) (*mcp.ClientSession, func(), error) {
	tr := &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256}
	header := http.Header{}
	if token != "" {
		header.Set("Authorization", "Bearer "+token)
	}
	hc, err := sameorigin.Client(tr, endpoint, header)
	if err != nil {
		return nil, nil, err
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "mcpcheck-bench", Version: conformance.Version()}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, DisableStandaloneSSE: true, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: conformance.ProtocolVersion})
	if err != nil {
		return nil, nil, fmt.Errorf("bench session: %w", err)
	}
	return cs, func() { _ = cs.Close(); tr.CloseIdleConnections() }, nil
}

// invoke makes one call through the shared session, within the call bound.
func (s *subject) invoke(ctx context.Context, c call) error {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	res, err := s.session.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return fmt.Errorf("%s: no answer within %s", c.tool, s.timeout)
	case err != nil:
		return err
	case res.IsError:
		return errors.New(toolText(res))
	}
	return nil
}
