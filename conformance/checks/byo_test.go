package checks

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/pdpp-connect/mcpcheck/adapter/adaptertest"

	"github.com/pdpp-connect/mcpcheck/conformance"
)

// The README's "bring your own adapter" line: an adapter that reads its RS
// and token from its own variables gets them through --env templating, and
// the data-dependent checks run against it.
func TestStdioEnvTemplating(t *testing.T) {
	bin := adaptertest.Binary(t)
	wrapper := filepath.Join(t.TempDir(), "adapter.sh")
	// It sees neither PDPP_* nor MCPCHECK_* variables: only RS_URL and RS_TOKEN.
	script := "#!/bin/sh\nexec env -u PDPP_PROVIDER_URL -u PDPP_CLIENT_TOKEN -u MCPCHECK_RS_URL -u MCPCHECK_RS_TOKEN " +
		"PDPP_CLIENT_TOKEN=\"$RS_TOKEN\" " + bin + " --provider-url \"$RS_URL\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	ids := []string{"S001", "S014", "S024", "S029"}
	rep, err := run(context.Background(), conformance.Config{Only: ids, Target: conformance.TargetSpec{Stdio: wrapper, Env: []string{"RS_URL={rs_url}", "RS_TOKEN={token}"}}})
	if err != nil || rep.TargetError != nil {
		t.Fatalf("%v %v", err, rep.TargetError)
	}
	got := rep.Verdicts()
	for _, id := range ids {
		if got[id] != conformance.Pass {
			t.Errorf("%s: %s, want pass through {rs_url}/{token} templating", id, got[id])
		}
	}
	// Without the templated token the adapter cannot read: templating is what
	// made the run above work.
	rep, err = run(context.Background(), conformance.Config{Only: []string{"S024"}, Target: conformance.TargetSpec{Stdio: wrapper, Env: []string{"RS_URL={rs_url}"}}})
	if err == nil && rep.TargetError == nil && rep.Verdicts()["S024"] == conformance.Pass {
		t.Error("S024 passed with no token reaching the adapter")
	}
}
