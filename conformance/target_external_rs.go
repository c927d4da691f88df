package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// ExternalRS is an RS mcpcheck reads through a --stdio adapter but neither
// serves nor controls: the real PDPP reference RS of mcpcheck --rs real,
// with the tokens it issued. Checks that need the fixture's control plane
// (its request log, faults, other fixtures) skip on it, saying so.
type ExternalRS struct {
	Name        string // for reports, e.g. "the real PDPP reference RS (gmail grant)"
	URL         string
	ClientToken string
	OwnerToken  string // "" when the RS issued none
}

// stdioRS is the RS a stdio target reads: spec.RS when it names one, else
// a fixture RS started for this target (rs non-nil, stopped by a closer).
func (t *Target) stdioRS(spec TargetSpec) (rs *LocalRS, rsURL, token string, err error) {
	if x := spec.RS; x != nil {
		t.lendTokens(x.ClientToken, x.OwnerToken)
		t.OwnerToken = x.OwnerToken
		if spec.ownerBearer {
			return nil, x.URL, x.OwnerToken, nil
		}
		return nil, x.URL, x.ClientToken, nil
	}
	rs, rsURL, stop, err := StartFixtureRS(spec)
	if err != nil {
		return nil, "", "", err
	}
	t.closers = append(t.closers, stop)
	t.setFixtureTokens(rs.RS)
	if spec.ownerBearer {
		return rs, rsURL, rs.RS.OwnerToken(), nil
	}
	return rs, rsURL, rs.RS.ClientToken(), nil
}

// externalStdio is a stdio target reading an [ExternalRS]: its command
// line and process, but no fork, no fixture and no RS log.
type externalStdio struct{ d *stdioDriver }

var (
	_ CommandRunner = externalStdio{}
	_ CLIRunner     = externalStdio{}
	_ Process       = externalStdio{}
)

func (e externalStdio) Help(ctx context.Context) (Help, error) { return e.d.Help(ctx) }
func (e externalStdio) RunCommand(ctx context.Context, extra map[string]string, args ...string) (string, string, int) {
	return e.d.RunCommand(ctx, extra, args...)
}
func (e externalStdio) StdioTools(ctx context.Context, extra map[string]string) ([]json.RawMessage, error) {
	return e.d.StdioTools(ctx, extra)
}
func (e externalStdio) HasCLI() bool { return e.d.HasCLI() }
func (e externalStdio) RunCLI(ctx context.Context, args ...string) (string, string, int) {
	return e.d.RunCLI(ctx, args...)
}
func (e externalStdio) PID() int       { return e.d.PID() }
func (e externalStdio) Stderr() string { return e.d.Stderr() }

// OpenAsOwner starts the command again with the external RS's owner token
// where it takes {token}.
func (e externalStdio) OpenAsOwner(ctx context.Context) (*Target, error) {
	if e.d.spec.RS.OwnerToken == "" {
		return nil, errors.New(e.d.spec.RS.Name + " issued no owner token")
	}
	spec := e.d.spec
	spec.ownerBearer = true
	return open(ctx, spec, (*Target).openStdio)
}

// reading is how a target's description names the RS: "" for a fixture RS.
func (x *ExternalRS) reading() string {
	if x == nil {
		return ""
	}
	return ", reading " + x.Name
}

// An RSReader reads the RS the adapter reads, under its client bearer:
// mcpcheck's own view of the data where it does not control the RS.
type RSReader interface {
	ReadRS(ctx context.Context, path, rawQuery string) (status int, body []byte, err error)
}

var _ RSReader = externalStdio{}

// maxRSRead bounds one answer mcpcheck reads from an external RS.
const maxRSRead = 8 << 20

// ReadRS is GET path?rawQuery on the external RS with the client token.
func (e externalStdio) ReadRS(ctx context.Context, path, rawQuery string) (int, []byte, error) {
	x := e.d.spec.RS
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	u := strings.TrimRight(x.URL, "/") + path
	if rawQuery != "" {
		u += "?" + rawQuery
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+x.ClientToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("read %s: %w", x.Name, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxRSRead+1))
	switch {
	case err != nil:
		return 0, nil, fmt.Errorf("read %s: %w", x.Name, err)
	case len(body) > maxRSRead:
		return 0, nil, fmt.Errorf("read %s: GET %s answered more than %d bytes", x.Name, path, maxRSRead)
	}
	return resp.StatusCode, body, nil
}
