package realrs

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pdpp-connect/mcpcheck/internal/realrskit"
)

// realRS is the RS the suite runs against: its URL and token files.
type realRS struct{ *realrskit.Kit }

var (
	rs         *realRS
	skipReason string
	pdppMCP    string // built binaries
	mcpcheck   string
)

// howToRun and pointAtRS say how to give the suite a real RS.
const (
	howToRun  = "run it with MCPCHECK_REALRS=1 (make realrs; make ci does) and the kit at ../shared/realrs beside the checkout or in REALRS_KIT, or " + pointAtRS
	pointAtRS = "point it at a running real RS with PDPP_REAL_RS_URL=http://host:port and PDPP_REAL_RS_TOKEN_DIR=DIR " +
		"(DIR holds client_token_<connector> files and, optionally, owner_token, as the kit's state dir does)"
)

func TestMain(m *testing.M) {
	code, err := run(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "realrs:", err)
		code = 1
	}
	os.Exit(code)
}

func run(m *testing.M) (int, error) {
	root, err := realrskit.ModuleRoot()
	if err != nil {
		return 0, err
	}
	kit, err := setup()
	if err != nil {
		return 0, err
	}
	defer func() {
		if err := kit.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "realrs:", err)
		}
	}()
	if rs != nil {
		bin, err := os.MkdirTemp("", "realrs-bin-")
		if err != nil {
			return 0, err
		}
		defer os.RemoveAll(bin)
		build := exec.Command("go", "build", "-o", bin+string(filepath.Separator), "./cmd/pdpp-mcp", "./cmd/mcpcheck")
		build.Dir, build.Stdout, build.Stderr = root, os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return 0, fmt.Errorf("building pdpp-mcp and mcpcheck: %w", err)
		}
		pdppMCP, mcpcheck = filepath.Join(bin, "pdpp-mcp"), filepath.Join(bin, "mcpcheck")
	}
	return m.Run(), nil
}

// need skips t when there is no real RS to run against, saying how to get one.
func need(t *testing.T) *realRS {
	t.Helper()
	if rs == nil {
		t.Skip(skipReason)
	}
	return rs
}

// setup finds the real RS: PDPP_REAL_RS_URL, or the kit started once for
// this package (its Stop stops it again only if this run started it).
func setup() (*realrskit.Kit, error) {
	if url := os.Getenv("PDPP_REAL_RS_URL"); url != "" {
		dir := os.Getenv("PDPP_REAL_RS_TOKEN_DIR")
		if dir == "" {
			skipReason = "PDPP_REAL_RS_URL is set but PDPP_REAL_RS_TOKEN_DIR is not; " + howToRun
			return nil, nil
		}
		kit, err := realrskit.Attach(url, dir)
		if err != nil {
			return nil, err
		}
		rs = &realRS{kit}
		return kit, nil
	}
	if os.Getenv("MCPCHECK_REALRS") == "" {
		skipReason = "the real-RS suite is off; " + howToRun
		return nil, nil
	}
	kit, skip, err := realrskit.Start("integration-realrs", true)
	if skip != "" {
		skipReason = skip + ", or " + pointAtRS
	}
	if kit != nil {
		rs = &realRS{kit}
	}
	return kit, err
}

func (r *realRS) token(t *testing.T, connector string) string {
	t.Helper()
	b, err := os.ReadFile(r.ClientTokenFiles[connector])
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}
