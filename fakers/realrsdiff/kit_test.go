package realrsdiff

import (
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/pdpp-connect/mcpcheck/internal/realrskit"
)

// kit is the running reference RS the differential test reads: its URL,
// client tokens and seeded connections.
type kit struct {
	rsURL  string
	client map[string]string // connector label (github, reddit, gmail) -> client token
	conns  map[string]realrskit.Connection
}

// reuseHelp adds this package's other way to a kit to realrskit's skip reason.
const reuseHelp = ", or set REALRS_STATE_DIR to the state dir of a kit started less than 10 minutes ago (its tokens expire)"

var (
	kitOnce    sync.Once
	running    *realrskit.Kit
	theKit     *kit
	kitSkip    string
	kitFailure error
)

// TestMain stops the kit's server after the tests, if a test started it.
func TestMain(m *testing.M) {
	code := m.Run()
	if err := running.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "realrsdiff:", err)
	}
	os.Exit(code)
}

// needKit starts the kit once, on first use, and returns it, or skips or
// fails the test saying why not.
func needKit(t *testing.T) *kit {
	t.Helper()
	kitOnce.Do(func() {
		if testing.Short() {
			kitSkip = "-short: the differential test starts the reference RS kit"
			return
		}
		running, kitSkip, kitFailure = realrskit.Start("fakers-realrsdiff", false)
		if kitSkip != "" {
			kitSkip += reuseHelp
		}
		if running != nil {
			theKit, kitFailure = readKit(running)
		}
	})
	switch {
	case kitFailure != nil:
		t.Fatalf("the reference RS kit did not start: %v", kitFailure)
	case kitSkip != "":
		t.Skip(kitSkip)
	}
	return theKit
}

// readKit reads the tokens and connections the test binds its requests to.
func readKit(k *realrskit.Kit) (*kit, error) {
	tokens, err := k.Tokens()
	if err != nil {
		return nil, err
	}
	conns, err := k.Connections()
	if err != nil {
		return nil, err
	}
	if tokens.Client["gmail"] == "" || tokens.Client["github"] == "" {
		return nil, fmt.Errorf("the reference RS at %s: want the gmail and github client tokens", k.URL)
	}
	return &kit{rsURL: k.URL, client: tokens.Client, conns: conns}, nil
}
