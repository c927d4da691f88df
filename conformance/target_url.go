package conformance

import (
	"context"
	"fmt"
	"net/url"

	"github.com/pdpp-connect/mcpcheck/fakers"
)

// urlDriver reaches a deployed Streamable HTTP endpoint, the bearer added
// by the wiretap transport.
type urlDriver struct {
	mcpURL, origin string
}

var _ HostedEndpoint = (*urlDriver)(nil)

func (d *urlDriver) MCPURL() string { return d.mcpURL }
func (d *urlDriver) Origin() string { return d.origin }

// controlledURLDriver reaches a deployed endpoint whose adapter reads from
// a pdpp-fake-rs that mcpcheck controls (--rs-control): one RS that every
// check and fork shares, so checks on such a target run one at a time.
type controlledURLDriver struct {
	urlDriver
	spec   TargetSpec // with the tokens the control plane lent
	remote *remoteRS
}

var (
	_ Forker         = (*controlledURLDriver)(nil)
	_ ControlledRS   = (*controlledURLDriver)(nil)
	_ HostedEndpoint = (*controlledURLDriver)(nil)
)

func (d *controlledURLDriver) FixtureRS() FixtureRS { return d.remote }
func (d *controlledURLDriver) RSURL() string        { return d.remote.origin() }

func (t *Target) openURL(ctx context.Context, spec TargetSpec) error {
	if spec.RSControl == "" {
		return t.connectURL(ctx, spec, nil)
	}
	r, err := dialRemoteRS(ctx, spec.RSControl, spec.RSControlToken, spec.ConnectTimeout, spec.authProbe())
	if err != nil {
		return err
	}
	t.lendTokens(r.secrets()...)
	if spec.Token == "" {
		spec.Token = r.tokens.Client
	}
	if spec.OwnerToken == "" {
		spec.OwnerToken = r.tokens.Owner
	}
	return t.connectURL(ctx, spec, r)
}

// connectURL opens a session to the endpoint; with r, its adapter reads
// from that controlled RS.
func (t *Target) connectURL(ctx context.Context, spec TargetSpec, r *remoteRS) error {
	d := urlDriver{mcpURL: spec.URL}
	if u, err := url.Parse(spec.URL); err == nil {
		d.origin = u.Scheme + "://" + u.Host
	}
	t.driver = &d
	t.Description = "url " + spec.URL
	if r != nil {
		t.driver = &controlledURLDriver{urlDriver: d, spec: spec, remote: r}
		t.Description += ", controlled fixture RS"
	}
	t.secret, t.OwnerToken = spec.Token, spec.OwnerToken
	t.ExpiredToken, t.ForeignToken = spec.ExpiredToken, spec.ForeignToken
	return t.connectHTTP(ctx, spec.URL, spec.Token, nil, spec.ConnectTimeout)
}

// Fork serves fx on the controlled RS and opens a new session to the same
// endpoint; closing the fork restores the RS's own data.
func (d *controlledURLDriver) Fork(ctx context.Context, fx *fakers.Fixture) (*Target, error) {
	r := d.remote
	if err := r.restore(context.Background()); err != nil {
		return nil, fmt.Errorf("controlled RS: %w", err)
	}
	if err := r.replace(ctx, fx); err != nil {
		_ = r.restore(context.Background())
		return nil, fmt.Errorf("controlled RS: serve the fork's data: %w", err)
	}
	// The fork's data goes with a bearer of its own, as another grant's
	// would: an adapter that caches what a bearer may read must not see
	// the fork's data under the run's bearer. An RS that mints none keeps
	// the run's.
	spec := d.spec
	if tok, err := r.mintClientToken(ctx); err == nil {
		spec.Token = tok
	}
	return open(ctx, spec, func(t *Target, ctx context.Context, spec TargetSpec) error {
		t.closers = append(t.closers, func() { _ = r.restore(context.Background()) }) // closed last
		t.lendTokens(spec.Token)
		return t.connectURL(ctx, spec, r)
	})
}
