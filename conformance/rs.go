package conformance

import (
	"context"
	"net/url"
	"strings"

	"github.com/pdpp-connect/mcpcheck/fakers"
)

// A FixtureRS is the fixture RS behind a target, as the framework drives
// it: in process ([LocalRS], for the reference and stdio targets) or a
// deployed pdpp-fake-rs reached over its control plane (--url with
// --rs-control), where any call may fail.
type FixtureRS interface {
	Requests(ctx context.Context) ([]fakers.Request, error)
	ResetRequests(ctx context.Context) error
	// Replay answers a logged request again, unlogged and without faults.
	Replay(ctx context.Context, r fakers.Request) (status int, body []byte, err error)
	// Fixture is a copy of the data the RS serves now; Baseline a fresh
	// copy of the data it serves by default.
	Fixture(ctx context.Context) (*fakers.Fixture, error)
	Baseline(ctx context.Context) (*fakers.Fixture, error)
	// Update applies fn to the served data and serves the result live.
	Update(ctx context.Context, fn func(*fakers.Fixture)) error
	InjectFault(ctx context.Context, prefix string, f fakers.Fault) error
	// Tokens are the RS's bearers by role.
	Tokens() fakers.Tokens
}

// A LocalRS is a fixture RS mcpcheck runs in its own process, as a
// [FixtureRS]: nothing it does can fail.
type LocalRS struct {
	RS          *fakers.RS
	FixtureName string // the named data set: Baseline loads it again
}

var _ FixtureRS = (*remoteRS)(nil)

func (l *LocalRS) Requests(context.Context) ([]fakers.Request, error) { return l.RS.Requests(), nil }
func (l *LocalRS) ResetRequests(context.Context) error                { l.RS.ResetRequests(); return nil }
func (l *LocalRS) Tokens() fakers.Tokens                              { return l.RS.AllTokens() }

func (l *LocalRS) Replay(_ context.Context, r fakers.Request) (int, []byte, error) {
	status, body := l.RS.Replay(r)
	return status, body, nil
}

func (l *LocalRS) Fixture(context.Context) (*fakers.Fixture, error) { return l.RS.Fixture(), nil }

func (l *LocalRS) Baseline(context.Context) (*fakers.Fixture, error) {
	return LoadFixture(l.FixtureName)
}

func (l *LocalRS) Update(_ context.Context, fn func(*fakers.Fixture)) error {
	l.RS.Update(fn)
	return nil
}

func (l *LocalRS) InjectFault(_ context.Context, prefix string, f fakers.Fault) error {
	l.RS.InjectFault(prefix, f)
	return nil
}

// An RSView is the target's fixture RS as a check uses it: an RS that
// cannot be reached ends the check as an error, never as a verdict on the
// adapter, and never as a panic out of the check.
type RSView struct {
	t   *T
	rs  FixtureRS
	url string
}

// RS is the fixture RS behind the check's target; a target without one
// skips the check ([CapControlledRS]).
func (t *T) RS() *RSView {
	c := need[ControlledRS](t, CapControlledRS)
	return &RSView{t: t, rs: c.FixtureRS(), url: c.RSURL()}
}

// ReadRS answers GET path?q from the RS the adapter reads, under its
// client bearer: replayed on mcpcheck's fixture RS, or read over HTTP from
// an RS mcpcheck reads but does not control (--rs real). ok is false when
// mcpcheck can read neither, or the read failed.
func (t *T) ReadRS(path string, q url.Values) (status int, body []byte, ok bool) {
	if t.Target.Has(CapControlledRS) {
		rs := t.RS()
		status, body = rs.Replay(fakers.Request{Method: "GET", Path: path, RawQuery: q.Encode(), Authorization: "Bearer " + rs.ClientToken()})
		return status, body, true
	}
	r, isReader := As[RSReader](t.Target)
	if !isReader {
		return 0, nil, false
	}
	status, body, err := r.ReadRS(t.ctx, path, q.Encode())
	return status, body, err == nil
}

// must ends the check as an error when the RS failed it.
func (v *RSView) must(err error) {
	if err != nil {
		panic(errorSignal{err.Error()})
	}
}

// URL is where the adapter reaches the RS.
func (v *RSView) URL() string { return v.url }

// ClientToken is the RS's client bearer.
func (v *RSView) ClientToken() string { return v.rs.Tokens().Client }

// Requests is the RS's request log, oldest first.
func (v *RSView) Requests() []fakers.Request {
	reqs, err := v.rs.Requests(v.t.ctx)
	v.must(err)
	return reqs
}

// RequestsTo is the logged requests whose path starts with prefix.
func (v *RSView) RequestsTo(prefix string) []fakers.Request {
	var out []fakers.Request
	for _, r := range v.Requests() {
		if strings.HasPrefix(r.Path, prefix) {
			out = append(out, r)
		}
	}
	return out
}

// ResetRequests empties the request log.
func (v *RSView) ResetRequests() { v.must(v.rs.ResetRequests(v.t.ctx)) }

// Replay answers a logged request again, unlogged and without faults.
func (v *RSView) Replay(r fakers.Request) (int, []byte) {
	status, body, err := v.rs.Replay(v.t.ctx, r)
	v.must(err)
	return status, body
}

// Fixture is a copy of the data the RS serves now.
func (v *RSView) Fixture() *fakers.Fixture {
	fx, err := v.rs.Fixture(v.t.ctx)
	v.must(err)
	return fx
}

// Update applies fn to the served data and serves the result live.
func (v *RSView) Update(fn func(*fakers.Fixture)) { v.must(v.rs.Update(v.t.ctx, fn)) }

// InjectFault has the RS answer requests under prefix with f.
func (v *RSView) InjectFault(prefix string, f fakers.Fault) {
	v.must(v.rs.InjectFault(v.t.ctx, prefix, f))
}
