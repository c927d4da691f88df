package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/conformance/internal/wiretap"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// stdioDriver reaches a local command that speaks newline-delimited
// JSON-RPC on its stdio, reading from a fixture RS mcpcheck started (or,
// wrapped in [externalStdio], from an [ExternalRS]).
type stdioDriver struct {
	spec      TargetSpec
	rs        *LocalRS
	rsURL     string
	argv, env []string // the command, templated, and its environment
	cliOnce   sync.Once
	cli       bool // whether `search --help` documents read-field

	cmd    *exec.Cmd
	stderr *tailBuffer
	exited chan struct{}
}

var (
	_ Forker        = (*stdioDriver)(nil)
	_ CommandRunner = (*stdioDriver)(nil)
	_ CLIRunner     = (*stdioDriver)(nil)
	_ ControlledRS  = (*stdioDriver)(nil)
	_ Process       = (*stdioDriver)(nil)
)

func (t *Target) openStdio(ctx context.Context, spec TargetSpec) error {
	rs, rsURL, token, err := t.stdioRS(spec)
	if err != nil {
		return err
	}
	t.secret = token
	expand := strings.NewReplacer("{rs_url}", rsURL, "{token}", token).Replace
	argv, assigned := slices.Clone(spec.StdioArgv), []string(nil)
	if len(argv) == 0 {
		if assigned, argv, err = ParseCommand(spec.Stdio); err != nil {
			return &TargetError{Unreachable: true, Reason: "--stdio: " + err.Error()}
		}
	}
	for i := range argv {
		argv[i] = expand(argv[i])
	}
	env := append(os.Environ(), "PDPP_PROVIDER_URL="+rsURL, "PDPP_CLIENT_TOKEN="+token, "MCPCHECK_RS_URL="+rsURL, "MCPCHECK_RS_TOKEN="+token)
	for _, kv := range append(assigned, spec.Env...) {
		env = append(env, expand(kv))
	}
	t.Description = spec.Describe()
	d := &stdioDriver{spec: spec, rs: rs, rsURL: rsURL, argv: argv, env: env, stderr: &tailBuffer{max: 64 << 10}, exited: make(chan struct{})}
	t.driver = d
	if spec.RS != nil {
		t.driver = externalStdio{d}
	}

	d.cmd = exec.Command(argv[0], argv[1:]...)
	d.cmd.Env = env
	d.cmd.Stderr = d.stderr
	stdin, err := d.cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := d.cmd.StdoutPipe()
	if err != nil {
		return err
	}
	t.started = time.Now()
	if err := d.cmd.Start(); err != nil {
		return &TargetError{Unreachable: true, Reason: fmt.Sprintf("start %s: %v", argv[0], err)}
	}
	go func() { _ = d.cmd.Wait(); close(d.exited) }()
	t.closers = append(t.closers, func() {
		stdin.Close()
		select {
		case <-d.exited:
		case <-time.After(2 * time.Second):
			_ = d.cmd.Process.Kill()
			<-d.exited
		}
	})
	tr := &mcp.IOTransport{Reader: wiretap.StdoutReader(t.Tap, stdout), Writer: wiretap.StdinWriter(t.Tap, stdin)}
	diagnose := func(timedOut bool, err error) error {
		if g := t.Tap.Garbage(); len(g) > 0 {
			return &TargetError{Unreachable: true, Reason: fmt.Sprintf("the command wrote non-JSON-RPC to stdout: %q", g[0])}
		}
		// A hang, or an answer the client refused (say "jsonrpc":"1.0"),
		// is its own reason, even if the command exits once its stdin closes.
		// A closed stdout, or a pipe that breaks (EPIPE) or was closed once
		// the command was reaped, under the first request, is the command gone.
		gone := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, mcp.ErrConnectionClosed) ||
			errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed)
		if timedOut || !gone {
			return nil
		}
		if state := d.exitState(time.Second); state != "" {
			return &TargetError{Unreachable: true, Reason: fmt.Sprintf("the command exited (%s) before answering; stderr ends: %s", state, lastLine(d.stderr.String())),
				StderrTail: StderrTail(d.stderr.String())}
		}
		return nil
	}
	if err := t.handshake(ctx, tr, spec.ConnectTimeout, diagnose); err != nil {
		return err
	}
	took := time.Since(t.started)
	spec.starts.took(took)
	t.callTimeout = scaledBound(t.callTimeout, took)
	return nil
}

// exitState is how the command ended, or "" while it runs. The pipe
// closes a moment before Wait returns: it waits up to wait for the exit
// status to land.
func (d *stdioDriver) exitState(wait time.Duration) string {
	select {
	case <-d.exited:
		return d.cmd.ProcessState.String()
	case <-time.After(wait):
		return ""
	}
}

func (d *stdioDriver) Fork(ctx context.Context, fx *fakers.Fixture) (*Target, error) {
	spec := d.spec
	spec.FixtureData = fx
	return spec.starts.fork(ctx, spec)
}

// OpenAsOwner starts the command again with the owner bearer where it took
// {token} (its arguments, --env, and mcpcheck's PDPP_CLIENT_TOKEN), on a
// fixture RS of its own, whose log shows what the bearer read.
func (d *stdioDriver) OpenAsOwner(ctx context.Context) (*Target, error) {
	spec := d.spec
	spec.ownerBearer = true
	fx, err := d.rs.Fixture(ctx)
	if err != nil {
		return nil, err
	}
	spec.FixtureData = fx
	return spec.starts.fork(ctx, spec)
}

func (d *stdioDriver) FixtureRS() FixtureRS { return d.rs }
func (d *stdioDriver) RSURL() string        { return d.rsURL }
func (d *stdioDriver) PID() int             { return d.cmd.Process.Pid }
func (d *stdioDriver) Stderr() string       { return d.stderr.String() }

func (d *stdioDriver) Help(ctx context.Context) (Help, error) { return runHelp(ctx, d.argv, d.env) }

func (d *stdioDriver) RunCommand(ctx context.Context, extra map[string]string, args ...string) (string, string, int) {
	env := append([]string(nil), d.env...)
	for k, v := range extra {
		env = append(env, k+"="+v)
	}
	return runCommand(ctx, d.argv[0], append(append([]string(nil), d.argv[1:]...), args...), env)
}

// StdioTools starts the command again with extra environment and returns
// its tools/list as received.
func (d *stdioDriver) StdioTools(ctx context.Context, extra map[string]string) ([]json.RawMessage, error) {
	again := d.spec
	again.Env = append([]string(nil), d.spec.Env...)
	for k, v := range extra {
		again.Env = append(again.Env, k+"="+v)
	}
	other, err := open(ctx, again, (*Target).openStdio)
	if err != nil {
		return nil, err
	}
	defer other.Close()
	return other.ToolsRaw, nil
}

func (d *stdioDriver) HasCLI() bool {
	d.cliOnce.Do(func() {
		out, errOut, code := runCommand(context.Background(), d.argv[0], []string{"search", "--help"}, d.env)
		d.cli = code == 0 && strings.Contains(out+errOut, "read-field")
	})
	return d.cli
}

func (d *stdioDriver) RunCLI(ctx context.Context, args ...string) (string, string, int) {
	return runCommand(ctx, d.argv[0], args, d.env)
}
