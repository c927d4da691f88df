package adapter_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/adapter"
	"github.com/pdpp-connect/mcpcheck/adapter/rsclient"
	"github.com/pdpp-connect/mcpcheck/fakers"
	"go.uber.org/goleak"
)

// RS client timeouts standing in for rsclient.DefaultTimeout (15 s): an
// impatient one judges hangs and drips in a fraction of a second; a patient
// one lets the other faults (a 50 MB body takes a while to build) be
// themselves rather than timeouts.
const (
	impatient = 300 * time.Millisecond
	patient   = 10 * time.Second
)

// faultBound is how long a faulty call may take to come back as an error:
// loose, since a loaded 2-core machine takes a second to build a 50 MB body.
const faultBound = 10 * time.Second

// bodyMeter counts how many response bytes the adapter reads per RS call.
type bodyMeter struct {
	base http.RoundTripper
	mu   sync.Mutex
	max  int64
}

func (m *bodyMeter) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := m.base.RoundTrip(req)
	if err == nil {
		resp.Body = &meteredBody{ReadCloser: resp.Body, m: m}
	}
	return resp, err
}

func (m *bodyMeter) reset() { m.mu.Lock(); m.max = 0; m.mu.Unlock() }

func (m *bodyMeter) maxRead() int64 { m.mu.Lock(); defer m.mu.Unlock(); return m.max }

type meteredBody struct {
	io.ReadCloser
	m *bodyMeter
	n int64
}

func (b *meteredBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	b.m.mu.Lock()
	b.m.max = max(b.m.max, b.n)
	b.m.mu.Unlock()
	return n, err
}

// faultSession runs the adapter over a fixture RS on a real loopback
// socket (resets, truncation and drips need one), with the given RS client
// timeout. Call checkLeaks first.
func faultSession(t *testing.T, timeout time.Duration) (*mcp.ClientSession, *fakers.RS, *bodyMeter) {
	t.Helper()
	fx, err := fakers.LoadFixture(fakers.DefaultFixture)
	if err != nil {
		t.Fatal(err)
	}
	fx.SpecClientReads = true
	rs := fakers.New(fx)
	rsURL, stop, err := rs.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	meter := &bodyMeter{base: tr}
	t.Cleanup(func() { // runs after the sessions close (cleanups run last-first)
		tr.CloseIdleConnections()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = stop(sctx)
	})
	cs := connectInMemory(t, adapter.Options{ProviderURL: rsURL, Token: rs.ClientToken(),
		HTTPClient: &http.Client{Timeout: timeout, Transport: meter}})
	return cs, rs, meter
}

// checkLeaks fails the test if goroutines it starts outlive it. Call it
// before anything that registers a cleanup: cleanups run last-first, so the
// check then runs after every session, server and transport has closed.
func checkLeaks(t *testing.T) {
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, before) })
}

// oneCallPerTool makes exactly one RS read per tool: each names its
// connection, so no schema lookup comes first.
var oneCallPerTool = []struct {
	tool, path string
	args       map[string]any
}{
	{"schema", "/v1/schema", map[string]any{}},
	{"query_records", "/v1/streams/messages/records", map[string]any{"stream": "messages", "connection_id": "cin_work", "limit": 5}},
	{"aggregate", "/v1/streams/messages/aggregate", map[string]any{"stream": "messages", "connection_id": "cin_work", "metric": "count"}},
	{"search", "/v1/search", map[string]any{"q": fakers.FanInTerm, "limit": 5}},
	{"fetch", "/v1/streams/messages/records/m001", map[string]any{"id": "cin_work/messages:m001"}},
	{"read_record_field", "/v1/streams/messages/records/m001/field-window", map[string]any{"id": "cin_work/messages:m001", "field_path": "body"}},
}

// Every RS fault comes back to the caller as a typed isError result within
// a bounded time, the body is read with a size limit, the next call is
// served normally, and no goroutine outlives the session.
func TestRSFaultsAreTypedErrors(t *testing.T) {
	type session struct {
		cs    *mcp.ClientSession
		rs    *fakers.RS
		meter *bodyMeter
	}
	checkLeaks(t)
	var fast, slow session
	fast.cs, fast.rs, fast.meter = faultSession(t, impatient)
	slow.cs, slow.rs, slow.meter = faultSession(t, patient)
	cases := []struct {
		name  string
		fault fakers.Fault
		on    *session
		code  string
		http  int // http_status in the error, 0 when none
	}{
		{"5xx with the RS error envelope", fakers.Fault{Status: 503}, &slow, "fault_injected", 503},
		{"5xx with an HTML body", fakers.Fault{Status: 502, Body: "<html>bad gateway</html>"}, &slow, "http_502", 502},
		{"connection reset", fakers.Fault{Reset: true}, &slow, "rs_unreachable", 0},
		{"no answer within the timeout", fakers.Fault{Delay: 2 * patient}, &fast, "rs_timeout", 0},
		{"truncated JSON", fakers.Fault{Truncate: true}, &slow, "rs_malformed_body", 200},
		{"2xx with a non-JSON body", fakers.Fault{Body: "Service temporarily unavailable"}, &slow, "rs_malformed_body", 200},
		{"50 MB body", fakers.Fault{Oversize: 50 << 20}, &slow, "rs_body_too_large", 200},
		{"slow drip past the timeout", fakers.Fault{Drip: 20 * time.Millisecond}, &fast, "rs_timeout", 200},
	}
	for _, tc := range cases {
		cs, rs, meter := tc.on.cs, tc.on.rs, tc.on.meter
		for _, call := range oneCallPerTool {
			t.Run(tc.name+"/"+call.tool, func(t *testing.T) {
				rs.ClearFaults()
				rs.ResetRequests()
				meter.reset()
				rs.InjectFault(call.path, tc.fault)
				start := time.Now()
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: call.tool, Arguments: call.args})
				took := time.Since(start)
				rs.ClearFaults()
				if err != nil {
					t.Fatalf("transport error %v, want an isError result", err)
				}
				if took > faultBound {
					t.Errorf("took %s, want under %s", took, faultBound)
				}
				e := errorObject(t, res)
				if e["code"] != tc.code {
					t.Errorf("code %v, want %s: %s", e["code"], tc.code, text(res))
				}
				if got, _ := e["http_status"].(float64); int(got) != tc.http {
					t.Errorf("http_status %v, want %d", e["http_status"], tc.http)
				}
				if msg, _ := e["message"].(string); msg == "" {
					t.Errorf("no message: %s", text(res))
				}
				if n := meter.maxRead(); n > rsclient.MaxBody+1 {
					t.Errorf("the adapter read %d body bytes, over the %d limit", n, rsclient.MaxBody)
				}
				// The RS logs a call once its handler ends, a moment after a
				// client that gave up has gone.
				for deadline := time.Now().Add(faultBound); len(rs.RequestsTo(call.path)) == 0; time.Sleep(10 * time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatalf("the faulty endpoint was never called: RS log %+v", rs.Requests())
					}
				}
				// The adapter keeps serving.
				res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: call.tool, Arguments: call.args})
				if err != nil || res.IsError {
					t.Fatalf("the call after the fault: %v %s", err, text(res))
				}
			})
		}
	}
}

// Faults on the schema lookup that precedes an unqualified read surface
// too, typed, instead of hanging the read behind them.
func TestRSFaultOnTheScopeLookup(t *testing.T) {
	checkLeaks(t)
	cs, rs, _ := faultSession(t, impatient)
	rs.InjectFault("/v1/schema", fakers.Fault{Delay: 10 * time.Second})
	start := time.Now()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fetch", Arguments: map[string]any{"id": "messages:m001"}})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > faultBound {
		t.Errorf("took %s", took)
	}
	// The lookup fails open (the RS decides), so the read itself answers.
	if res.IsError {
		var e map[string]any
		_ = json.Unmarshal([]byte(text(res)), &e)
		if e["code"] == nil {
			t.Errorf("untyped error %s", text(res))
		}
	}
}
