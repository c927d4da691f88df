package conformance

import (
	"context"
	"encoding/json"

	"github.com/pdpp-connect/mcpcheck/fakers"
)

// A Capability is something a target may or may not offer a check. Each
// one is an interface below, which the driver of the target's kind
// implements or not: [Target.Has] asks the driver, and a check that needs
// a capability its target lacks is skipped with [Capability.SkipReason].
type Capability string

const (
	// CapLocalCommand: mcpcheck can run the adapter's command line itself
	// (the reference adapter, or a --stdio target): a [CommandRunner].
	CapLocalCommand Capability = "local-command"
	// CapControlledRS: the adapter reads from a fixture RS that mcpcheck runs
	// or controls, and whose request log it can inspect: a [ControlledRS].
	CapControlledRS Capability = "controlled-rs"
	// CapFixture: mcpcheck can open the adapter again against a fixture RS
	// of its choosing, or have the controlled RS serve it: a [Forker].
	CapFixture Capability = "fixture"
	// CapCLI: the implementation has a reference-style CLI (`search`,
	// `read-field`) that mcpcheck can run: the reference adapter, or a
	// --stdio command whose `search --help` documents read-field: a
	// [CLIRunner].
	CapCLI Capability = "cli"
	// CapHTTP: the target is a hosted Streamable HTTP endpoint with an origin
	// mcpcheck can probe (the reference adapter or --url): a [HostedEndpoint].
	CapHTTP Capability = "http"
)

var skipReasons = map[Capability]string{
	CapLocalCommand: "needs a local adapter command (the reference adapter or --stdio); a --url target has none",
	CapControlledRS: "needs the adapter to read from mcpcheck's fixture RS (the reference adapter, --stdio without --rs real, or --url with --rs-control)",
	CapFixture:      "needs to serve the adapter a fixture RS of mcpcheck's choosing (the reference adapter, --stdio without --rs real, or --url with --rs-control)",
	CapCLI:          "needs the implementation's CLI (search / read-field) run locally: the reference adapter, or --stdio with a command whose `search --help` documents read-field; the target offers none mcpcheck can run",
	CapHTTP:         "needs the hosted HTTP endpoint (the reference adapter or --url); a stdio target has none",
}

// SkipReason says why a check that needs c skips on a target without it.
func (c Capability) SkipReason() string { return skipReasons[c] }

// absentOn says, per target kind, when lacking a capability means the
// scenario's subject is absent, so the check is not applicable rather
// than skipped: a stdio adapter has no hosted endpoint at all, while a
// --url deployment may well have a command line mcpcheck cannot run.
var absentOn = map[Capability]map[TargetKind]string{
	CapHTTP: {KindStdio: "it judges the hosted HTTP endpoint, and a stdio-only adapter has none"},
}

// subjectAbsent says why a check that needs c does not apply to a target
// of kind k, or "" when lacking c only keeps mcpcheck from judging it.
func (c Capability) subjectAbsent(k TargetKind) string { return absentOn[c][k] }

// A Forker opens the same adapter (same command, same mutant) again against
// a fixture RS serving fx, so a check can count RS calls, flip the schema or
// load a scale grant without disturbing checks that run alongside
// ([CapFixture]). Closing the fork ends what it started.
type Forker interface {
	Fork(ctx context.Context, fx *fakers.Fixture) (*Target, error)
}

// A CommandRunner runs the adapter's own command line ([CapLocalCommand]).
type CommandRunner interface {
	// Help runs the command with --help.
	Help(ctx context.Context) (Help, error)
	// RunCommand runs the command with extra environment and extra
	// arguments, stdin closed: how a process refuses to start.
	RunCommand(ctx context.Context, env map[string]string, args ...string) (stdout, stderr string, code int)
	// StdioTools starts the adapter over stdio with extra environment and
	// returns its tools/list as received.
	StdioTools(ctx context.Context, env map[string]string) ([]json.RawMessage, error)
	// OpenAsOwner starts the adapter again over stdio, reading the same
	// fixture RS, with the RS's owner bearer wherever its command or
	// environment takes its client token ({token}): the session it
	// serves, or the error of a start it refused.
	OpenAsOwner(ctx context.Context) (*Target, error)
}

// A CLIRunner runs the implementation's reference-style command line:
// `search` and `read-field` ([CapCLI]).
type CLIRunner interface {
	// HasCLI reports whether the command has such a CLI: the reference
	// adapter does; a --stdio command does when its `search --help`
	// documents read-field (asked once).
	HasCLI() bool
	RunCLI(ctx context.Context, args ...string) (stdout, stderr string, code int)
}

// A ControlledRS is a target whose adapter reads from a fixture RS that
// mcpcheck runs or controls ([CapControlledRS]).
type ControlledRS interface {
	FixtureRS() FixtureRS
	// RSURL is where the adapter reaches the RS.
	RSURL() string
}

// A HostedEndpoint is a Streamable HTTP endpoint whose origin mcpcheck can
// probe below the MCP SDK: auth, metadata, the setup page ([CapHTTP]).
type HostedEndpoint interface {
	MCPURL() string
	Origin() string
}

// A Process is an adapter process mcpcheck started (a --stdio command).
type Process interface {
	PID() int
	// Stderr is the tail of what the process wrote to stderr: its log,
	// which must never hold the bearer.
	Stderr() string
}

// As returns the target's capability C ([Forker], [CommandRunner], …) when
// the driver of its kind offers it.
func As[C any](t *Target) (C, bool) {
	c, ok := t.driver.(C)
	return c, ok
}

// Has reports whether the target offers a capability.
func (t *Target) Has(c Capability) bool {
	var ok bool
	switch c {
	case CapLocalCommand:
		_, ok = As[CommandRunner](t)
	case CapControlledRS:
		_, ok = As[ControlledRS](t)
	case CapFixture:
		_, ok = As[Forker](t)
	case CapCLI:
		var r CLIRunner
		r, ok = As[CLIRunner](t)
		ok = ok && r.HasCLI()
	case CapHTTP:
		_, ok = As[HostedEndpoint](t)
	}
	return ok
}

// need is the target's capability C, or skips the check with c's reason.
func need[C any](t *T, c Capability) C {
	x, ok := As[C](t.Target)
	if !ok || !t.Target.Has(c) {
		t.SkipFor(c, "")
	}
	return x
}

// Command is the target's command line; a target without one skips the
// check ([CapLocalCommand]).
func (t *T) Command() CommandRunner { return need[CommandRunner](t, CapLocalCommand) }

// CLI is the implementation's CLI; a target without one skips the check
// ([CapCLI]).
func (t *T) CLI() CLIRunner { return need[CLIRunner](t, CapCLI) }

// Hosted is the target's HTTP endpoint; a target without one skips the
// check ([CapHTTP]).
func (t *T) Hosted() HostedEndpoint { return need[HostedEndpoint](t, CapHTTP) }
