package variation

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/pdpp-connect/mcpcheck/adapter/adaptertest"
)

// The shipped pdpp-mcp carries no variation: it does not link this
// package, and no variation id appears anywhere in the binary.
func TestShippedAdapterHasNoVariation(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/pdpp-mcp")
	}
	deps, err := exec.Command("go", "list", "-deps", "../../cmd/pdpp-mcp").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, deps)
	}
	if strings.Contains(string(deps), "adapter/variation") {
		t.Error("cmd/pdpp-mcp imports adapter/variation")
	}
	data, err := os.ReadFile(adaptertest.Binary(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range All() {
		if bytes.Contains(data, []byte(v.ID)) {
			t.Errorf("the pdpp-mcp binary contains the variation id %q", v.ID)
		}
	}
}
