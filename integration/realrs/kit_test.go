package realrs

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// realRS is the RS the suite runs against: its URL and token files.
type realRS struct {
	URL string
	// Clients maps a connector (github, reddit, gmail) to its client
	// token file.
	Clients map[string]string
	// Owner is the owner token file, "" when there is none.
	Owner string
}

var (
	rs         *realRS
	skipReason string
	pdppMCP    string // built binaries
	mcpcheck   string
)

const howToRun = "run it with MCPCHECK_REALRS=1 (make realrs; make ci does) and the kit at ../shared/realrs beside the checkout, " +
	"or point it at a running real RS with PDPP_REAL_RS_URL=http://host:port and PDPP_REAL_RS_TOKEN_DIR=DIR " +
	"(DIR holds client_token_<connector> files and, optionally, owner_token, as the kit's state dir does)"

func TestMain(m *testing.M) {
	code, err := run(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "realrs:", err)
		code = 1
	}
	os.Exit(code)
}

func run(m *testing.M) (int, error) {
	root, err := moduleRoot()
	if err != nil {
		return 0, err
	}
	stop, err := setup(root)
	if err != nil {
		return 0, err
	}
	defer stop()
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

// setup finds the real RS: PDPP_REAL_RS_URL, or the kit started once
// (stop stops it again only if this run started it).
func setup(root string) (stop func(), err error) {
	stop = func() {}
	if url := os.Getenv("PDPP_REAL_RS_URL"); url != "" {
		dir := os.Getenv("PDPP_REAL_RS_TOKEN_DIR")
		if dir == "" {
			skipReason = "PDPP_REAL_RS_URL is set but PDPP_REAL_RS_TOKEN_DIR is not; " + howToRun
			return stop, nil
		}
		rs, err = tokensIn(url, dir)
		return stop, err
	}
	if os.Getenv("MCPCHECK_REALRS") == "" {
		skipReason = "the real-RS suite is off; " + howToRun
		return stop, nil
	}
	kit := os.Getenv("REALRS_KIT") // the kit's folder, where it is not ../shared/realrs
	if kit == "" {
		kit = filepath.Join(filepath.Dir(root), "shared", "realrs")
	}
	if _, err := os.Stat(filepath.Join(kit, "start.sh")); err != nil {
		skipReason = "no real-RS kit at " + kit + "; " + howToRun
		return stop, nil
	}
	work := os.Getenv("REALRS_WORK")
	if work == "" {
		work = filepath.Join(root, ".cache", "realrs")
	}
	env := kitEnv(work)
	stopKit := func() {
		s := exec.Command("bash", filepath.Join(kit, "stop.sh"))
		s.Env, s.Stdout, s.Stderr = env, os.Stderr, os.Stderr
		_ = s.Run()
	}
	vals, already, err := startKit(kit, env)
	if err != nil {
		return stop, err
	}
	if already && tokensStale(vals["state_dir"]) {
		// The kit's tokens live tokenLifetime from its start: a kit left
		// running is restarted only when its state is this checkout's own.
		if !strings.HasPrefix(vals["state_dir"], filepath.Join(root, ".cache")+string(filepath.Separator)) {
			return stop, fmt.Errorf("the real RS running with state %s has expired tokens (they live %s from its start); "+
				"stop it with stop.sh, or set REALRS_STATE_DIR to a state dir of your own", vals["state_dir"], tokenLifetime)
		}
		stopKit()
		if vals, already, err = startKit(kit, env); err != nil {
			return stop, err
		}
	}
	if !already {
		stop = stopKit
	}
	rs, err = tokensIn(vals["rs_url"], vals["state_dir"])
	return stop, err
}

// tokenLifetime is how long the kit's tokens stay valid after its start
// (expires_in 600 in state.json), with a margin for the suite's own run.
const tokenLifetime = 10 * time.Minute

// tokensStale reports tokens minted too long ago for the suite to finish
// with them: the ready file is written right after they are minted.
func tokensStale(stateDir string) bool {
	fi, err := os.Stat(filepath.Join(stateDir, "ready"))
	return err != nil || time.Since(fi.ModTime()) > tokenLifetime-4*time.Minute
}

// startKit runs start.sh; already says the kit was running before.
func startKit(kit string, env []string) (vals map[string]string, already bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute) // a first start downloads ~127 MB
	defer cancel()
	start := exec.CommandContext(ctx, "bash", filepath.Join(kit, "start.sh"))
	var out, log bytes.Buffer
	start.Env, start.Stdout, start.Stderr = env, &out, &log
	if err := start.Run(); err != nil {
		return nil, false, fmt.Errorf("%s/start.sh: %w\n%s", kit, err, tail(log.String(), 40))
	}
	vals = keyValues(out.String())
	if vals["rs_url"] == "" || vals["state_dir"] == "" {
		return nil, false, fmt.Errorf("start.sh printed no rs_url/state_dir:\n%s", out.String())
	}
	return vals, strings.Contains(log.String(), "already running"), nil
}

// kitEnv is the environment of start.sh and stop.sh: one work dir, and the
// npm registry's default when no npm client can name one.
func kitEnv(work string) []string {
	env := append(os.Environ(), "REALRS_WORK="+work)
	if os.Getenv("REALRS_NPM_REGISTRY") == "" && os.Getenv("npm_config_registry") == "" {
		if _, err := exec.LookPath("npm"); err != nil {
			env = append(env, "REALRS_NPM_REGISTRY=https://registry.npmjs.org/")
		}
	}
	return env
}

// tokensIn reads the token files of a state dir.
func tokensIn(url, dir string) (*realRS, error) {
	r := &realRS{URL: strings.TrimRight(url, "/"), Clients: map[string]string{}}
	files, _ := filepath.Glob(filepath.Join(dir, "client_token_*"))
	for _, f := range files {
		r.Clients[strings.TrimPrefix(filepath.Base(f), "client_token_")] = f
	}
	if len(r.Clients) == 0 {
		return nil, fmt.Errorf("no client_token_<connector> file in %s", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "owner_token")); err == nil {
		r.Owner = filepath.Join(dir, "owner_token")
	}
	return r, nil
}

// connectors are the connectors with a client token, sorted.
func (r *realRS) connectors() []string {
	var out []string
	for c := range r.Clients {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

func (r *realRS) token(t *testing.T, connector string) string {
	t.Helper()
	b, err := os.ReadFile(r.Clients[connector])
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the test's directory")
		}
		dir = parent
	}
}

func keyValues(s string) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		if k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "="); ok {
			out[k] = v
		}
	}
	return out
}

func tail(s string, lines int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(ls[max(0, len(ls)-lines):], "\n")
}
