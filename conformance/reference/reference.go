// Package reference is the reference adapter, pdpp-mcp, as a target that
// mcpcheck runs in its own process ([conformance.InProcess]), with one of
// its mutants (a named, deliberate fault) or none. It is the only part of
// the harness that imports the adapter it judges; cmd/mcpcheck wires it in
// as the default target, and conformance/matrix reads the mutant catalogue
// through it.
package reference

import (
	"context"
	"io"
	"net/http"
	"net/url"

	"github.com/pdpp-connect/mcpcheck/adapter"
	"github.com/pdpp-connect/mcpcheck/adapter/variation"
	"github.com/pdpp-connect/mcpcheck/conformance"
)

// An Adapter is pdpp-mcp, optionally with one variation.
type Adapter struct {
	v *variation.Variation // nil: as shipped
}

var _ conformance.InProcess = (*Adapter)(nil)

// New returns the reference adapter with the named mutant, or with none
// for "". An unknown name is an error that lists the known ones.
func New(mutant string) (*Adapter, error) {
	v, err := variation.Lookup(mutant)
	if err != nil {
		return nil, err
	}
	return &Adapter{v: v}, nil
}

// Spec is a target spec whose in-process adapter is the reference adapter
// with the named mutant. Set URL or Stdio to check another adapter: the
// reference's auth probe is still the one fixture RSs exempt.
func Spec(mutant string) (conformance.TargetSpec, error) {
	a, err := New(mutant)
	if err != nil {
		return conformance.TargetSpec{}, err
	}
	return conformance.TargetSpec{InProcess: a}, nil
}

// Name is how reports describe the target.
func (a *Adapter) Name() string {
	name := "reference adapter (pdpp-mcp over loopback HTTP, fixture RS)"
	if a.v != nil {
		name += ", mutant " + a.v.ID
	}
	return name
}

// Handler is the hosted surface for the RS at rsURL, read with rs.
func (a *Adapter) Handler(rsURL string, rs *http.Client) (http.Handler, error) {
	opts := adapter.Options{ProviderURL: rsURL, HTTPClient: rs}
	variation.Configure(a.v, &opts)
	ad, err := adapter.New(opts)
	if err != nil {
		return nil, err
	}
	return ad.Handler(), nil
}

// MCPPath is where the hosted surface serves MCP.
func (a *Adapter) MCPPath() string { return adapter.MCPPath }

// Main runs pdpp-mcp's command line with the adapter's variation.
func (a *Adapter) Main(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	return variation.Run(ctx, a.v, args, getenv, stdin, stdout, stderr)
}

// AuthProbe is the RS request the hosted pdpp-mcp makes to check each
// request's bearer: the compact schema of a stream no grant holds.
func (a *Adapter) AuthProbe() conformance.RSRequest {
	return conformance.RSRequest{Path: "/v1/schema", Query: url.Values{"view": {"compact"}, "stream": {adapter.AuthProbeStream}}}
}

// Main runs pdpp-mcp's command line plus its hidden --mutant flag, which
// only mcpcheck offers (its hidden pdpp-mcp subcommand): the production
// binary has no mutant hook.
func Main(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	return variation.Main(ctx, args, getenv, stdin, stdout, stderr)
}

// A Mutant is one entry of the catalogue: a mutant (Kills: the clause
// keys or scenario ids that must fail against it, and its declared
// Collateral), or a conforming variant (Freedom and Allowed: what the seeds
// leave open), which no check may fail.
type Mutant struct {
	ID               string
	Kills            []string
	Collateral       []string
	Doc              string
	Freedom, Allowed string
	// Advised, for a conforming variant, are clause keys that may fail it
	// at the recommended level only: mcpcheck's own advice, which its
	// freedom does not follow.
	Advised []string
	// Inapplicable, for a conforming variant, are the scenario ids its
	// freedom leaves with no subject, each with why.
	Inapplicable map[string]string
	// KnownFalse, for a conforming variant, are the check ids known to
	// fail it (or judge it less) falsely today, each with its cause.
	KnownFalse map[string]string
}

// Conforming reports a conforming variant.
func (m Mutant) Conforming() bool { return m.Freedom != "" }

// Mutants lists the mutants, by id.
func Mutants() []Mutant { return rows(variation.All()) }

// Variants lists the conforming variants, by id.
func Variants() []Mutant { return rows(variation.Variants()) }

func rows(vs []variation.Variation) []Mutant {
	out := make([]Mutant, 0, len(vs))
	for _, v := range vs {
		out = append(out, Mutant{ID: v.ID, Kills: v.Kills, Collateral: v.Collateral, Doc: v.Doc, Freedom: v.Freedom, Allowed: v.Allowed, Advised: v.Advised, Inapplicable: v.Inapplicable, KnownFalse: v.KnownFalse})
	}
	return out
}
