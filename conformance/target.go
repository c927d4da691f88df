package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/pdpp-connect/mcpcheck/internal/shellquote"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/internal/wiretap"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// ProtocolVersion is pinned so traffic and byte counts are deterministic
// (the SDK would otherwise try the draft server/discover first).
const ProtocolVersion = "2025-11-25"

// DefaultConnectTimeout bounds connecting, initialize and tools/list.
const DefaultConnectTimeout = 15 * time.Second

// A TargetKind names how mcpcheck reaches the adapter.
type TargetKind string

const (
	KindReference TargetKind = "reference" // the in-process adapter over loopback HTTP
	KindURL       TargetKind = "url"       // a deployed Streamable HTTP endpoint
	KindStdio     TargetKind = "stdio"     // a local command speaking stdio
)

// A TargetSpec says which adapter to check. The zero value is the reference adapter.
type TargetSpec struct {
	URL   string // Streamable HTTP endpoint
	Token string // bearer for URL targets; never printed
	// OwnerToken, when the user supplies one for a URL target, lets the
	// checks prove an owner bearer is refused; never printed.
	OwnerToken string
	// ExpiredToken and ForeignToken, when the user supplies them for a URL
	// target, are a client token whose grant expired and one issued for
	// another resource: U13 proves both are challenged. Never printed.
	ExpiredToken, ForeignToken string
	// Stdio is a command line, split as a POSIX shell would (quotes, $VAR,
	// ~, leading NAME=value assignments), and StdioArgv the command as an
	// argv, taken as given (mcpcheck --stdio -- cmd args…); in both,
	// {rs_url} and {token} are replaced.
	Stdio     string
	StdioArgv []string
	Env       []string
	// RS, for a stdio target, is an RS mcpcheck does not control that the
	// command reads instead of a fixture RS (mcpcheck --rs real).
	RS *ExternalRS
	// Fixture names the fixture RS data set for reference and stdio targets.
	Fixture string
	// FixtureData, when set, is served instead of the named fixture. Checks
	// use it through [Forker.Fork] for scale grants and live mutation.
	FixtureData *fakers.Fixture
	// RSControl is the control plane of the pdpp-fake-rs a URL target reads
	// from, and RSControlToken its bearer (never printed): with them the
	// URL target gets the controlled-RS and fixture capabilities.
	RSControl, RSControlToken string
	// InProcess is the adapter a spec with neither URL nor Stdio checks,
	// in mcpcheck's own process: the reference adapter
	// (conformance/reference.Spec).
	InProcess InProcess
	// AuthProbe is the RS request the adapter makes only to check a bearer
	// (the hosted reference adapter asks for a compact schema of a stream
	// no grant holds, once per request). Fixture RSs, mcpcheck's own and
	// a controlled one, serve it unlogged and without faults, so checks
	// count the RS requests of tool calls only. Zero means InProcess's,
	// whatever the kind, or none.
	AuthProbe RSRequest
	// ConnectTimeout bounds the handshake. Zero means DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// Dialect corrects the argument roles inferred from the target's
	// inputSchemas (--dialect); nil for none.
	Dialect *dialect.Overrides
	// ownerBearer puts the fixture RS's owner bearer where the command
	// takes {token} ([CommandRunner.OpenAsOwner]).
	ownerBearer bool
	// starts is shared by a stdio target and its forks: how long the
	// command took to answer, and the gate that starts a slow one's forks
	// one at a time.
	starts *startClock
	// Redactor collects every token the target is lent (these, the fixture
	// RS's, the control plane's) and redacts them from what mcpcheck
	// reports. Nil means a new one; share one to redact other output too.
	Redactor *Redactor
}

// Kind reports which target the spec selects.
func (s TargetSpec) Kind() TargetKind {
	switch {
	case s.URL != "":
		return KindURL
	case s.Stdio != "" || len(s.StdioArgv) > 0:
		return KindStdio
	}
	return KindReference
}

// authProbe is the RS request fixture RSs exempt, if any.
func (s TargetSpec) authProbe() RSRequest {
	if s.AuthProbe.Path == "" && s.InProcess != nil {
		return s.InProcess.AuthProbe()
	}
	return s.AuthProbe
}

// Describe names the target for a report when it could not be opened (an
// open target describes itself in more detail: [Target.Description]).
func (s TargetSpec) Describe() string {
	switch {
	case s.Kind() == KindURL:
		return "url " + s.URL
	case len(s.StdioArgv) > 0:
		return "stdio " + shellquote.Join(s.StdioArgv) + s.RS.reading()
	case s.Kind() == KindStdio:
		return "stdio " + s.Stdio + s.RS.reading()
	}
	return "reference adapter"
}

// A TargetError is a failure to reach or use a target at all.
type TargetError struct {
	Unreachable bool   `json:"unreachable"` // else: authentication rejected
	Reason      string `json:"reason"`
	// StderrTail is the end of what an exited --stdio command wrote to
	// stderr ([StderrTail]): where a crash says what broke.
	StderrTail []string `json:"stderr_tail,omitempty"`
}

func (e *TargetError) Error() string { return e.Reason }

// Help is what an adapter command printed for --help.
type Help struct {
	Stdout, Stderr string
	ExitCode       int
}

// A Target is an open MCP session plus what mcpcheck knows about the
// adapter. What else a check can do with it depends on its kind: the
// driver it holds implements the capability interfaces ([As], [Target.Has]).
type Target struct {
	Kind        TargetKind
	Description string // safe to print: never holds the token
	Session     *mcp.ClientSession
	Tap         *wiretap.Tap
	Init        *mcp.InitializeResult
	ToolsRaw    []json.RawMessage // each tool exactly as received
	Tools       []*mcp.Tool
	// OwnerToken is an owner bearer the target's RS knows, when mcpcheck
	// has one: the fixture's, or the user's for a URL target.
	OwnerToken string
	// ExpiredToken, ForeignToken and ControlPlaneToken are bearers the RS
	// refuses or that /mcp must refuse, when mcpcheck has them: the
	// fixture's, or the user's for a URL target (no control-plane one).
	ExpiredToken, ForeignToken, ControlPlaneToken string
	// Startup is the time from starting the adapter's process to its
	// answered initialize, when mcpcheck started one (stdio).
	Startup time.Duration

	// driver reaches the target: an *inProcessDriver, *urlDriver,
	// *controlledURLDriver or *stdioDriver.
	driver  any
	started time.Time
	secret  string
	closers []func()
	memo    memo // what checks discovered about this target

	dialect     *dialect.Dialect // argument names by role ([Target.Dialect])
	dialectOnce sync.Once

	calls, failedCalls atomic.Int64 // tool calls made, and those that returned isError

	redactor    *Redactor     // every token lent, shared with forks
	callTimeout time.Duration // bounds one tools/call, as the handshake is bounded
	downMu      sync.Mutex
	down        string   // why the target stopped serving mid-run; "" while it serves
	downStderr  []string // the exited command's stderr tail, when that is why
}

// callCounts are how many tool calls checks made, and how many failed.
func (t *Target) callCounts() (int, int) { return int(t.calls.Load()), int(t.failedCalls.Load()) }

// Close ends the session and everything mcpcheck started for it.
func (t *Target) Close() {
	for i := len(t.closers) - 1; i >= 0; i-- {
		t.closers[i]()
	}
	t.closers = nil
}

// BearerToken is the client bearer the target's session uses. Never print it.
func (t *Target) BearerToken() string {
	if c, ok := As[ControlledRS](t); ok && t.secret == "" {
		return c.FixtureRS().Tokens().Client
	}
	return t.secret
}

// sharedRS reports a controlled RS that every check and fork of the target
// shares (--rs-control): checks on it run one at a time.
func (t *Target) sharedRS() bool {
	_, ok := t.driver.(*controlledURLDriver)
	return ok
}

// Down says why the target stopped serving during the run (its command
// exited, or it stopped answering), or "" while it serves. Run reports a
// down target as unreachable; calls to it fail at once.
func (t *Target) Down() string {
	t.downMu.Lock()
	defer t.downMu.Unlock()
	return t.down
}

// downError is the run's target error when the target stopped serving
// mid-run, else nil.
func (t *Target) downError() *TargetError {
	t.downMu.Lock()
	defer t.downMu.Unlock()
	if t.down == "" {
		return nil
	}
	return &TargetError{Unreachable: true, Reason: "the target stopped serving during the run: " + t.down, StderrTail: t.downStderr}
}

func (t *Target) markDown(reason string) {
	t.downMu.Lock()
	defer t.downMu.Unlock()
	if t.down == "" {
		t.down = reason
	}
}

// callFailed judges a call that failed below JSON-RPC and returns the
// check's one-line error. A call with no answer in time, an exited command,
// or a target that then fails a ping too, marks the target down; any other
// failure (a 100 MB result, say) concerns that call only.
func (t *Target) callFailed(ctx context.Context, step string, err error) string {
	msg := fmt.Sprintf("%s: %s", step, FirstLine(t.redact(err.Error())))
	switch refused := t.Tap.RefusedRedirect(); {
	case refused != nil: // every later request would be redirected too
		msg = step + ": " + refused.Error()
		t.markDown(msg)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		msg = fmt.Sprintf("%s: no answer within %s", step, t.callTimeout)
		t.markDown(msg)
	case ctx.Err() != nil: // the run was cancelled: judge nothing
	case t.exited():
		p := t.stdioProcess()
		t.markDown(fmt.Sprintf("%s: the command exited (%s); stderr ends: %s", step, p.exitState(time.Second), lastLine(p.Stderr())))
		t.downMu.Lock()
		if t.downStderr == nil {
			t.downStderr = StderrTail(p.Stderr())
		}
		t.downMu.Unlock()
	default:
		pctx, cancel := context.WithTimeout(context.Background(), min(t.callTimeout, 5*time.Second))
		defer cancel()
		if perr := t.Session.Ping(pctx, nil); perr != nil {
			t.markDown(msg + "; a ping then failed too")
		}
	}
	return msg
}

// exited reports a stdio target whose command has exited.
func (t *Target) exited() bool {
	p := t.stdioProcess()
	return p != nil && p.exitState(time.Second) != ""
}

// stdioProcess is a stdio target's driver, whatever RS it reads; nil for
// other targets.
func (t *Target) stdioProcess() *stdioDriver {
	switch d := t.driver.(type) {
	case *stdioDriver:
		return d
	case externalStdio:
		return d.d
	}
	return nil
}

// redact removes every token the target was lent, in any form, from s.
func (t *Target) redact(s string) string {
	if t == nil {
		return s
	}
	return t.redactor.String(s)
}

// setFixtureTokens takes the refused bearers from the fixture RS, and has
// every token it knows redacted.
func (t *Target) setFixtureTokens(rs *fakers.RS) {
	t.OwnerToken, t.ExpiredToken = rs.OwnerToken(), rs.ExpiredToken()
	t.ForeignToken, t.ControlPlaneToken = rs.ForeignResourceToken(), rs.ControlPlaneToken()
	k := rs.AllTokens()
	t.lendTokens(k.Client, k.Owner, k.Expired, k.Revoked, k.Malformed, k.Legacy, k.Package, t.ForeignToken, t.ControlPlaneToken)
}

// Open connects to the target the spec names, performs initialize and
// tools/list, and records both on the wire.
func Open(ctx context.Context, spec TargetSpec) (*Target, error) {
	if spec.ConnectTimeout == 0 {
		spec.ConnectTimeout = DefaultConnectTimeout
	}
	if spec.Redactor == nil {
		spec.Redactor = NewRedactor()
	}
	spec.Redactor.Add(spec.Token, spec.OwnerToken, spec.ExpiredToken, spec.ForeignToken, spec.RSControlToken)
	switch spec.Kind() {
	case KindURL:
		return open(ctx, spec, (*Target).openURL)
	case KindStdio:
		if spec.starts == nil {
			spec.starts = &startClock{}
		}
		return open(ctx, spec, (*Target).openStdio)
	}
	return open(ctx, spec, (*Target).openInProcess)
}

// open makes a target with the opener of its kind, and types its failure.
// Drivers open their forks with it too.
func open(ctx context.Context, spec TargetSpec, opener func(*Target, context.Context, TargetSpec) error) (*Target, error) {
	t := &Target{Kind: spec.Kind(), Tap: wiretap.New(), redactor: spec.Redactor}
	if err := opener(t, ctx, spec); err != nil {
		t.Close()
		var te *TargetError
		if errors.As(err, &te) {
			te.Reason = t.redact(te.Reason)
			return nil, te
		}
		return nil, &TargetError{Unreachable: true, Reason: t.redact(err.Error())}
	}
	t.dialect = dialect.FromToolsList(t.ToolsRaw, spec.Dialect)
	return t, nil
}

// LoadFixture loads a named fixture the way targets serve it: client tokens
// read as the spec says (live capability flags, filter and expand accepted),
// because the seed scenarios presuppose a grant whose schema advertises what
// it supports. The implementation's grant projection would hide every flag
// and make those scenarios unjudgeable (docs/RS-CONTRACT.md §4.3, §15 #3).
func LoadFixture(name string) (*fakers.Fixture, error) {
	if name == "" {
		name = fakers.DefaultFixture
	}
	fx, err := fakers.LoadFixture(name)
	if err != nil {
		return nil, err
	}
	fx.SpecClientReads = true
	return fx, nil
}

func (t *Target) connectHTTP(ctx context.Context, endpoint, token string, base http.RoundTripper, timeout time.Duration) error {
	header := http.Header{}
	if token != "" {
		header.Set("Authorization", "Bearer "+token)
	}
	if base == nil {
		// The handshake and every call carry their own deadline; this only
		// backstops requests made without one.
		base = &http.Transport{DialContext: (&net.Dialer{Timeout: 5 * time.Second}).DialContext, ResponseHeaderTimeout: timeout + 5*time.Second}
	}
	tr := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: wiretap.HTTPClient(t.Tap, base, endpoint, header),
		DisableStandaloneSSE: true, MaxRetries: -1}
	return t.handshake(ctx, tr, timeout, nil)
}

// handshake connects, then lists tools; diagnose explains failures.
// diagnose, if set, explains a failure from what the target did (garbage on
// stdout, an early exit); timedOut says whether the deadline passed.
func (t *Target) handshake(ctx context.Context, tr mcp.Transport, timeout time.Duration, diagnose func(timedOut bool, err error) error) error {
	t.callTimeout = timeout
	hctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpcheck", Version: Version()}, nil)
	cs, err := client.Connect(hctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
	if err != nil {
		return t.explain("initialize", err, hctx, timeout, diagnose)
	}
	if !t.started.IsZero() {
		t.Startup = time.Since(t.started)
	}
	t.Session = cs
	t.closers = append(t.closers, func() { _ = cs.Close() })
	t.Init = cs.InitializeResult()
	raw, err := listToolsRaw(hctx, cs, t.Tap, HandshakeLimit)
	var te *TargetError
	switch {
	case errors.As(err, &te):
		return te
	case err != nil:
		return t.explain("tools/list", err, hctx, timeout, diagnose)
	}
	t.ToolsRaw = raw
	for _, r := range raw {
		var tool mcp.Tool
		if err := json.Unmarshal(r, &tool); err != nil {
			return &TargetError{Unreachable: true, Reason: "tools/list returned a tool that is not a JSON object: " + err.Error()}
		}
		t.Tools = append(t.Tools, &tool)
	}
	return nil
}

func (t *Target) explain(step string, err error, ctx context.Context, timeout time.Duration, diagnose func(timedOut bool, err error) error) error {
	if refused := t.Tap.RefusedRedirect(); refused != nil {
		return &TargetError{Unreachable: true, Reason: step + ": " + refused.Error()}
	}
	for _, code := range t.Tap.HTTPStatuses() {
		if code == http.StatusUnauthorized || code == http.StatusForbidden {
			return &TargetError{Reason: fmt.Sprintf("%s: authentication rejected (HTTP %d); check --token-file or MCPCHECK_TOKEN", step, code)}
		}
	}
	timedOut := ctx.Err() != nil
	if diagnose != nil {
		if d := diagnose(timedOut, err); d != nil {
			return d
		}
	}
	if timedOut {
		if stray := t.Tap.Stray(); len(stray) > 0 {
			return &TargetError{Unreachable: true, Reason: fmt.Sprintf("%s: no answer within %s; the target answered with an id no request carried: %s", step, timeout, stray[0])}
		}
		return &TargetError{Unreachable: true, Reason: fmt.Sprintf("%s: no answer within %s", step, timeout)}
	}
	msg := err.Error()
	var opErr *net.OpError
	if errors.As(err, &opErr) || errors.Is(err, syscall.ECONNREFUSED) {
		msg = "cannot connect: " + opErr.Error()
	}
	return &TargetError{Unreachable: true, Reason: fmt.Sprintf("%s: %s", step, FirstLine(msg))}
}
