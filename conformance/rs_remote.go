package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/pdpp-connect/mcpcheck/conformance/internal/sameorigin"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// remoteRS drives a pdpp-fake-rs over its control plane.
type remoteRS struct {
	base   string // the control URL, ending in /
	token  string
	hc     *http.Client
	tokens fakers.Tokens
}

// dialRemoteRS checks that the control plane answers and accepts the
// token, and has the RS exempt probe (if any) from its log and faults.
func dialRemoteRS(ctx context.Context, controlURL, token string, timeout time.Duration, probe RSRequest) (*remoteRS, error) {
	u, err := url.Parse(controlURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, &TargetError{Unreachable: true, Reason: fmt.Sprintf("--rs-control %q: want an http:// or https:// URL", controlURL)}
	}
	if !strings.HasSuffix(controlURL, "/") {
		controlURL += "/"
	}
	if token == "" {
		return nil, &TargetError{Reason: "--rs-control needs a control token: --rs-control-token-file or MCPCHECK_RS_CONTROL_TOKEN"}
	}
	r := &remoteRS{base: controlURL, token: token, hc: &http.Client{Timeout: timeout, CheckRedirect: sameorigin.CheckRedirect}}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	status, body, err := r.do(ctx, http.MethodGet, "tokens", nil)
	var refused *sameorigin.RedirectError
	switch {
	case errors.As(err, &refused):
		return nil, &TargetError{Unreachable: true, Reason: "--rs-control: " + refused.Error()}
	case err != nil:
		return nil, &TargetError{Unreachable: true, Reason: "--rs-control: cannot reach the fixture RS control plane: " + FirstLine(err.Error())}
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return nil, &TargetError{Reason: fmt.Sprintf("--rs-control: control token rejected (HTTP %d); check --rs-control-token-file or MCPCHECK_RS_CONTROL_TOKEN", status)}
	case status != http.StatusOK:
		return nil, &TargetError{Unreachable: true, Reason: fmt.Sprintf("--rs-control: not a fixture RS control plane (HTTP %d: %s)", status, FirstLine(string(body)))}
	}
	if err := json.Unmarshal(body, &r.tokens); err != nil || r.tokens.Client == "" {
		return nil, &TargetError{Unreachable: true, Reason: "--rs-control: not a fixture RS control plane: tokens answer " + FirstLine(string(body))}
	}
	// As for mcpcheck's own RS: a hosted adapter's per-request bearer
	// check is not one of the RS calls checks count or fault.
	if probe.Path != "" {
		exempt := fakers.Mutation{Op: "exempt", Path: probe.Path, Query: probe.Query}
		if status, body, err := r.do(ctx, http.MethodPost, "mutations", exempt); err != nil || status != http.StatusOK {
			return nil, &TargetError{Unreachable: true, Reason: fmt.Sprintf("--rs-control: exempt the auth probe: HTTP %d %s %v", status, FirstLine(string(body)), err)}
		}
	}
	return r, nil
}

// origin is the RS's own origin: the control plane is mounted on it.
func (r *remoteRS) origin() string {
	return strings.TrimSuffix(strings.TrimSuffix(r.base, "/"), strings.TrimSuffix(fakers.ControlPrefix, "/"))
}

func (r *remoteRS) do(ctx context.Context, method, path string, in any) (int, []byte, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return 0, nil, err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, r.base+path, body)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+r.token)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := r.hc.Do(req)
	var refused *sameorigin.RedirectError
	switch {
	case errors.As(err, &refused):
		return 0, nil, refused
	case err != nil:
		return 0, nil, errors.New(strings.ReplaceAll(err.Error(), r.token, "[redacted]"))
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	return resp.StatusCode, b, err
}

// call is do for one control-plane call: any failure is an error that
// names the call.
func (r *remoteRS) call(ctx context.Context, method, path string, in, out any) error {
	status, body, err := r.do(ctx, method, path, in)
	if err == nil && status != http.StatusOK {
		err = fmt.Errorf("HTTP %d: %s", status, FirstLine(string(body)))
	}
	if err == nil && out != nil {
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		err = dec.Decode(out)
	}
	if err != nil {
		return fmt.Errorf("fixture RS control plane: %s %s: %w", method, path, err)
	}
	return nil
}

func (r *remoteRS) Requests(ctx context.Context) ([]fakers.Request, error) {
	var out struct{ Requests []fakers.Request }
	err := r.call(ctx, http.MethodGet, "requests", nil, &out)
	return out.Requests, err
}

func (r *remoteRS) ResetRequests(ctx context.Context) error {
	return r.call(ctx, http.MethodPost, "requests/reset", nil, nil)
}

func (r *remoteRS) Replay(ctx context.Context, q fakers.Request) (int, []byte, error) {
	var out struct {
		Status int
		Body   string
	}
	err := r.call(ctx, http.MethodPost, "replay", q, &out)
	return out.Status, []byte(out.Body), err
}

func (r *remoteRS) Fixture(ctx context.Context) (*fakers.Fixture, error) {
	var fx fakers.Fixture
	if err := r.call(ctx, http.MethodGet, "fixture", nil, &fx); err != nil {
		return nil, err
	}
	return &fx, nil
}

// Baseline is what the RS started with: a fork's data is restored to it.
func (r *remoteRS) Baseline(ctx context.Context) (*fakers.Fixture, error) {
	var fx fakers.Fixture
	if err := r.call(ctx, http.MethodGet, "fixture/baseline", nil, &fx); err != nil {
		return nil, err
	}
	return &fx, nil
}

// Update applies fn to a copy of the served data and serves the result live.
func (r *remoteRS) Update(ctx context.Context, fn func(*fakers.Fixture)) error {
	fx, err := r.Fixture(ctx)
	if err != nil {
		return err
	}
	fn(fx)
	return r.replace(ctx, fx)
}

// replace serves fx; restore serves the RS's own data again.
func (r *remoteRS) replace(ctx context.Context, fx *fakers.Fixture) error {
	return r.call(ctx, http.MethodPost, "mutations", fakers.Mutation{Op: "replace", Fixture: fx}, nil)
}

func (r *remoteRS) restore(ctx context.Context) error {
	return r.call(ctx, http.MethodPost, "mutations", fakers.Mutation{Op: "restore"}, nil)
}

// mintClientToken asks the RS for a new grant-scoped client token.
func (r *remoteRS) mintClientToken(ctx context.Context) (string, error) {
	var out struct{ Token string }
	if err := r.call(ctx, http.MethodPost, "client-tokens", nil, &out); err != nil {
		return "", err
	}
	if out.Token == "" {
		return "", fmt.Errorf("fixture RS control plane: POST client-tokens: no token")
	}
	return out.Token, nil
}

func (r *remoteRS) InjectFault(ctx context.Context, prefix string, f fakers.Fault) error {
	return r.call(ctx, http.MethodPost, "mutations", fakers.Mutation{Op: "inject-fault", Prefix: prefix, Fault: &f}, nil)
}

func (r *remoteRS) Tokens() fakers.Tokens { return r.tokens }

// secrets are the control plane's token and every RS token it handed out.
func (r *remoteRS) secrets() []string {
	k := r.tokens
	return []string{r.token, k.Client, k.Owner, k.Expired, k.Revoked, k.Malformed, k.Legacy, k.Package}
}
