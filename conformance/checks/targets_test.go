package checks

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pdpp-connect/mcpcheck/adapter/adaptertest"

	"github.com/pdpp-connect/mcpcheck/conformance"

	"github.com/pdpp-connect/mcpcheck/fakers"
	"github.com/pdpp-connect/mcpcheck/fakers/hostile"
)

// TestMain doubles as a hostile MCP server when MCPCHECK_HOSTILE is set, so
// the tests can exercise broken stdio targets without extra binaries.
func TestMain(m *testing.M) {
	switch os.Getenv("MCPCHECK_HOSTILE") {
	case "":
		if registryErr != nil {
			fmt.Fprintf(os.Stderr, "conformance/checks: %v\n(every scenario of scenarios/ needs an entry in conformance/checks/registry.go: its check, or a manual classification naming the executable proxy that stands in for it)\n", registryErr)
			fmt.Println("FAIL")
			os.Exit(1)
		}
		os.Exit(m.Run())
	case "garbage":
		fmt.Println("Starting my adapter... ready!")
		time.Sleep(30 * time.Second)
	case "hang": // reads requests, never answers
		_, _ = io.Copy(io.Discard, os.Stdin)
	case "exit":
		fmt.Fprintln(os.Stderr, "fatal: missing configuration")
		os.Exit(3)
	default:
		hostile.RunStdio(os.Getenv(hostile.Env), os.Stdin, os.Stdout)
	}
	os.Exit(0)
}

// serveBinary runs `pdpp-mcp serve` against a fresh fixture RS and returns
// the /mcp URL and the client token.
func serveBinary(t *testing.T) (string, string) {
	u, tok, _ := serveBinaryWithOwner(t)
	return u, tok
}

// serveBinaryWithOwner is serveBinary that also returns the fixture RS's
// owner token, for the owner-refusal checks of a URL target.
func serveBinaryWithOwner(t *testing.T) (string, string, string) {
	t.Helper()
	rs, rsURL, stop, err := conformance.StartFixtureRS(conformance.TargetSpec{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return serveBinaryOn(t, rsURL), rs.RS.ClientToken(), rs.RS.OwnerToken()
}

// serveBinaryOn runs `pdpp-mcp serve` against the RS at rsURL and returns
// its /mcp URL.
func serveBinaryOn(t *testing.T, rsURL string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, adaptertest.Binary(t), "serve", "--addr", "127.0.0.1:0", "--provider-url", rsURL)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	serving := regexp.MustCompile(`serving (http://\S+/mcp)`)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := serving.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case u := <-found:
		return u
	case <-time.After(15 * time.Second):
		t.Fatal("pdpp-mcp serve did not report its address")
	}
	return ""
}

// The same adapter reached three ways gives the same verdicts. The only
// allowed difference is a check the URL target cannot host, which must be a
// skip naming the missing capability.
func TestTargetsAgree(t *testing.T) {
	ctx := context.Background()
	ref, err := run(ctx, conformance.Config{})
	if err != nil || ref.TargetError != nil {
		t.Fatalf("reference: %v %v", err, ref.TargetError)
	}
	bin := adaptertest.Binary(t)
	stdio, err := run(ctx, conformance.Config{Target: conformance.TargetSpec{Stdio: bin + " --provider-url {rs_url}"}})
	if err != nil || stdio.TargetError != nil {
		t.Fatalf("stdio: %v %v", err, stdio.TargetError)
	}
	// Only MCP frames on stdout.
	tgt, err := conformance.Open(ctx, conformance.TargetSpec{Stdio: bin + " --provider-url {rs_url}"})
	if err != nil {
		t.Fatal(err)
	}
	if g := tgt.Tap.Garbage(); len(g) > 0 {
		t.Errorf("pdpp-mcp wrote non-JSON to stdout: %q", g)
	}
	tgt.Close()
	if stdio.ExitCode() != conformance.ExitPass {
		t.Errorf("stdio: exit %d, want 0 (totals %+v)", stdio.ExitCode(), stdio.Totals)
	}
	mcpURL, token, owner := serveBinaryWithOwner(t)
	url, err := run(ctx, conformance.Config{Target: conformance.TargetSpec{URL: mcpURL, Token: token, OwnerToken: owner}})
	if err != nil || url.TargetError != nil {
		t.Fatalf("url: %v %v", err, url.TargetError)
	}
	want := ref.Verdicts()
	// A stdio target has no hosted endpoint: checks that need one do not
	// apply there, and the conforming stdio adapter passes outright.
	for id, v := range stdio.Verdicts() {
		if needs(id, CapHTTP) && v == conformance.NA {
			continue
		}
		if v != want[id] {
			t.Errorf("stdio %s: %s, reference %s", id, v, want[id])
		}
	}
	for _, row := range url.Rows {
		if row.Result == nil {
			continue
		}
		r := row.Result
		needsLocal := false
		for _, c := range All() {
			if c.ID == row.ID {
				for _, n := range c.Needs {
					needsLocal = needsLocal || n == CapLocalCommand || n == CapControlledRS || n == CapFixture
				}
			}
		}
		switch {
		case needsLocal:
			if r.Verdict != conformance.Skip || r.Message == "" {
				t.Errorf("url %s: %s, want a skip with a reason", row.ID, r.Verdict)
			}
		case (r.Verdict == conformance.Partial || r.Verdict == conformance.Skip) && (want[row.ID] == conformance.Pass || want[row.ID] == conformance.NA) &&
			(strings.Contains(r.Message, CapFixture.SkipReason()) || strings.Contains(r.Message, CapControlledRS.SkipReason())):
			// Clauses that need a fixture RS (its request log, its own
			// answers, its records to judge by value) are not exercised on
			// a URL target; the rest hold.
		case r.Verdict == conformance.NA && want[row.ID] == conformance.Pass:
			// The reference passes on a fixture it forks to (pdpp:// handles
			// live in the evidence fixture); a URL target serves only its own
			// data, which has no such subject: not applicable, never a pass.
		case r.Verdict != want[row.ID]:
			t.Errorf("url %s: %s, reference %s (%s)", row.ID, r.Verdict, want[row.ID], r.Message)
		}
	}
	if ref.Footprint.TotalBytes != stdio.Footprint.TotalBytes || ref.Footprint.TotalBytes != url.Footprint.TotalBytes {
		t.Errorf("footprint differs by transport: reference %d, stdio %d, url %d", ref.Footprint.TotalBytes, stdio.Footprint.TotalBytes, url.Footprint.TotalBytes)
	}
}

// A deployed adapter whose RS is a pdpp-fake-rs with its control plane
// gets every check the reference target gets: --url with --rs-control gives
// the same verdicts, and skips only for what no URL target has (a local
// command or CLI).
func TestControlledURLTargetAgrees(t *testing.T) {
	ctx := context.Background()
	ref, err := run(ctx, conformance.Config{})
	if err != nil || ref.TargetError != nil {
		t.Fatalf("reference: %v %v", err, ref.TargetError)
	}
	fx, err := conformance.LoadFixture(fakers.DefaultFixture)
	if err != nil {
		t.Fatal(err)
	}
	rs := fakers.New(fx)
	ctl, err := rs.EnableControl()
	if err != nil {
		t.Fatal(err)
	}
	rsURL, stop, err := rs.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stop(context.Background()) })
	mcpURL := serveBinaryOn(t, rsURL)
	// No bearer flags: the client and owner tokens come from the control plane.
	got, err := run(ctx, conformance.Config{Target: conformance.TargetSpec{URL: mcpURL, RSControl: rsURL + fakers.ControlPrefix, RSControlToken: ctl}})
	if err != nil || got.TargetError != nil {
		t.Fatalf("url: %v %v", err, got.TargetError)
	}
	want := ref.Verdicts()
	for _, row := range got.Rows {
		if row.Result == nil {
			continue
		}
		r := row.Result
		if r.Verdict == conformance.Skip && (needs(row.ID, CapLocalCommand) || needs(row.ID, CapCLI)) && want[row.ID] != conformance.Skip {
			continue
		}
		if r.Verdict != want[row.ID] {
			t.Errorf("url+control %s: %s, reference %s (%s)", row.ID, r.Verdict, want[row.ID], r.Message)
		}
		for _, c := range []Capability{CapControlledRS, CapFixture} {
			if r.Verdict == conformance.Skip && strings.Contains(r.Message, c.SkipReason()) {
				t.Errorf("url+control %s skipped for %s", row.ID, c)
			}
		}
	}
	if n := len(rs.Fixture().Streams); n != len(fx.Streams) {
		t.Errorf("the RS serves %d streams after the run, want its own %d back", n, len(fx.Streams))
	}
}

// The controlled checks can fail on a URL target: each mutant is killed
// by its own id through the remote control plane.
func TestControlledURLTargetKillsMutants(t *testing.T) {
	for m, id := range map[string]string{
		"skip-expand-gate": "S008", "cache-expand-schema": "S009", "retry-after-401": "S014",
		"title-from-emitted-at": "S027", "probe-children-for-ambiguity": "S032", "invent-evidence": "S045",
	} {
		t.Run(m, func(t *testing.T) {
			fx, err := conformance.LoadFixture(fakers.DefaultFixture)
			if err != nil {
				t.Fatal(err)
			}
			srv := serveReference(t, fx, m)
			ctl, err := srv.RS.EnableControl()
			if err != nil {
				t.Fatal(err)
			}
			rep, err := run(context.Background(), conformance.Config{Only: []string{id},
				Target: conformance.TargetSpec{URL: srv.MCPURL, RSControl: srv.RSURL + fakers.ControlPrefix, RSControlToken: ctl}})
			if err != nil || rep.TargetError != nil {
				t.Fatalf("%v %v", err, rep.TargetError)
			}
			if v := rep.Verdicts()[id]; v != conformance.Fail {
				t.Errorf("%s under %s: %s, want fail", id, m, v)
			}
		})
	}
}

// A control plane that is absent, or refuses the token, stops the run
// before any check with a typed reason and the right exit code.
func TestControlPlaneErrorsAreTyped(t *testing.T) {
	fx, _ := conformance.LoadFixture(fakers.DefaultFixture)
	rs := fakers.New(fx)
	if _, err := rs.EnableControl(); err != nil {
		t.Fatal(err)
	}
	rsURL, stop, err := rs.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stop(context.Background()) })
	cases := []struct {
		name, control, token string
		exit                 int
		reason               string
	}{
		{"unreachable", "http://127.0.0.1:1/_fixture/", "fixturectl_secret_value", conformance.ExitUnreachable, "cannot reach the fixture RS control plane"},
		{"wrong token", rsURL + fakers.ControlPrefix, "fixturectl_wrong", conformance.ExitAuth, "control token rejected (HTTP 401)"},
		{"no token", rsURL + fakers.ControlPrefix, "", conformance.ExitAuth, "needs a control token"},
		{"not a control plane", rsURL + "/v1/", "fixturectl_secret_value", conformance.ExitUnreachable, "not a fixture RS control plane"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spec := conformance.TargetSpec{URL: "http://127.0.0.1:1/mcp", RSControl: tc.control, RSControlToken: tc.token, ConnectTimeout: 3 * time.Second}
			rep, err := run(context.Background(), conformance.Config{Target: spec, Only: []string{"S001"}})
			if err != nil {
				t.Fatal(err)
			}
			if rep.TargetError == nil {
				t.Fatalf("no target error; verdicts %v", rep.Verdicts())
			}
			if got := rep.ExitCode(); got != tc.exit {
				t.Errorf("exit %d, want %d (%s)", got, tc.exit, rep.TargetError.Reason)
			}
			if !strings.Contains(rep.TargetError.Reason, tc.reason) || (tc.token != "" && strings.Contains(rep.TargetError.Reason, tc.token)) {
				t.Errorf("reason %q, want it to contain %q and no token", rep.TargetError.Reason, tc.reason)
			}
		})
	}
}

// Broken targets end within a bounded time with a one-line reason and the
// right exit code; none hangs the run.
func TestBrokenTargetsEndWithTypedReasons(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	mcpURL, _ := serveBinary(t)
	cases := []struct {
		name   string
		spec   conformance.TargetSpec
		exit   int
		reason string
	}{
		{"unreachable URL", conformance.TargetSpec{URL: "http://127.0.0.1:1/mcp"}, conformance.ExitUnreachable, "cannot connect"},
		{"missing bearer", conformance.TargetSpec{URL: mcpURL}, conformance.ExitAuth, "authentication rejected (HTTP 401)"},
		{"garbage on stdout", conformance.TargetSpec{Stdio: self, Env: []string{"MCPCHECK_HOSTILE=garbage"}}, conformance.ExitUnreachable, "non-JSON-RPC to stdout"},
		{"hung server", conformance.TargetSpec{Stdio: self, Env: []string{"MCPCHECK_HOSTILE=hang"}}, conformance.ExitUnreachable, "no answer within"},
		{"exits at once", conformance.TargetSpec{Stdio: self, Env: []string{"MCPCHECK_HOSTILE=exit"}}, conformance.ExitUnreachable, "missing configuration"},
		{"no such command", conformance.TargetSpec{Stdio: "/nonexistent/adapter"}, conformance.ExitUnreachable, "start /nonexistent/adapter"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.spec.ConnectTimeout = 3 * time.Second
			start := time.Now()
			rep, err := run(context.Background(), conformance.Config{Target: tc.spec, Only: []string{"S001"}})
			if err != nil {
				t.Fatal(err)
			}
			if elapsed := time.Since(start); elapsed > 10*time.Second {
				t.Errorf("took %s, want a bounded end", elapsed)
			}
			if rep.TargetError == nil {
				t.Fatalf("no target error; verdicts %v", rep.Verdicts())
			}
			if got := rep.ExitCode(); got != tc.exit {
				t.Errorf("exit %d, want %d (%s)", got, tc.exit, rep.TargetError.Reason)
			}
			if !strings.Contains(rep.TargetError.Reason, tc.reason) || strings.Contains(rep.TargetError.Reason, "\n") {
				t.Errorf("reason %q, want one line containing %q", rep.TargetError.Reason, tc.reason)
			}
		})
	}
}

// needs reports whether check id declares capability c.
func needs(id string, c Capability) bool {
	for _, ch := range All() {
		if ch.ID == id {
			for _, n := range ch.Needs {
				if n == c {
					return true
				}
			}
		}
	}
	return false
}

// A grant without third-party data makes the checks that need a shared
// stream skip with that reason, never pass.
func TestChecksNeedingASharedStreamSkipOnASingleConnection(t *testing.T) {
	rep, err := run(context.Background(), conformance.Config{Target: conformance.TargetSpec{Fixture: "single-connection"}, Only: []string{"S018", "S019", "S032"}})
	if err != nil || rep.TargetError != nil {
		t.Fatalf("single-connection: %v %v", err, rep.TargetError)
	}
	seen := 0
	for _, row := range rep.Rows {
		if row.Result == nil {
			continue
		}
		seen++
		if r := row.Result; r.Verdict != conformance.Skip || !strings.Contains(r.Message, "shared stream") {
			t.Errorf("%s: %s %q, want a skip naming the missing shared stream", row.ID, r.Verdict, r.Message)
		}
	}
	if seen != 3 {
		t.Errorf("ran %d of S018, S019, S032", seen)
	}
}

// On a URL target U15 judges that no tool output, an RS refusal
// included, carries the bearer; S014, which needs the RS's request log,
// skips there.
func TestBearerEchoJudgedOnAURLTarget(t *testing.T) {
	for _, tc := range []struct {
		mutant string
		want   conformance.Verdict
	}{{"", conformance.Pass}, {"echo-bearer-in-errors", conformance.Fail}} {
		// The production pdpp-mcp has no --mutant: serve the mutant in process.
		fx, err := conformance.LoadFixture(fakers.DefaultFixture)
		if err != nil {
			t.Fatal(err)
		}
		srv := serveReference(t, fx, tc.mutant)
		rep, err := run(context.Background(), conformance.Config{Target: conformance.TargetSpec{URL: srv.MCPURL, Token: srv.RS.ClientToken()}, Only: []string{"S014", "U15"}})
		if err != nil || rep.TargetError != nil {
			t.Fatalf("%q: %v %v", tc.mutant, err, rep.TargetError)
		}
		if v := rep.Verdicts()["U15"]; v != tc.want {
			t.Errorf("U15 on a URL target with mutant %q: %s, want %s", tc.mutant, v, tc.want)
		}
		if v := rep.Verdicts()["S014"]; v != conformance.Skip {
			t.Errorf("S014 on a URL target with mutant %q: %s, want skip (it needs the RS's request log)", tc.mutant, v)
		}
	}
}
