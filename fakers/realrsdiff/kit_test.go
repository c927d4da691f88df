package realrsdiff

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// kit is a running reference RS of ../shared/realrs: its URL, tokens and
// connections, read from the kit's state.json.
type kit struct {
	rsURL  string
	owner  string
	client map[string]string // connector label (github, reddit, gmail) -> client token
	conns  map[string]kitConnection
	stop   func() // nil when the test did not start the server
}

type kitConnection struct {
	ConnectorID  string         `json:"connector_id"`
	SourceID     string         `json:"source_id"`
	ConnectionID string         `json:"connection_id"`
	DisplayName  string         `json:"display_name"`
	Records      map[string]int `json:"records"`
}

// kitHelp says how to run the test where the kit is not beside the checkout.
const kitHelp = "put the kit at ../shared/realrs beside the module root (CI does) or name its folder in REALRS_KIT, or set REALRS_STATE_DIR to the state dir of a kit started less than 10 minutes ago (its tokens expire)"

// moduleRoot is the directory holding go.mod, from the test's directory up.
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
			return "", errors.New("no go.mod above the test directory")
		}
		dir = parent
	}
}

// startKit reuses the running kit whose state dir REALRS_STATE_DIR names,
// or starts one of its own: the install under REALRS_WORK (default
// <module>/.cache/realrs, gitignored, reused across runs), a state dir and
// free ports of its own, so that it never stops a server another test
// package started. skip is set when there is no kit to use.
func startKit() (k *kit, skip string, err error) {
	if dir := os.Getenv("REALRS_STATE_DIR"); dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "ready")); err == nil {
			k, err := readKit(dir)
			if err == nil {
				err = k.ping()
			}
			return k, "", err
		}
	}
	root, err := moduleRoot()
	if err != nil {
		return nil, "", err
	}
	kitDir := os.Getenv("REALRS_KIT")
	if kitDir == "" {
		kitDir = filepath.Join(filepath.Dir(root), "shared", "realrs")
	}
	if _, err := os.Stat(filepath.Join(kitDir, "start.sh")); err != nil {
		return nil, "the reference RS kit is absent (" + kitDir + "): " + kitHelp, nil
	}
	work := os.Getenv("REALRS_WORK")
	if work == "" {
		work = filepath.Join(root, ".cache", "realrs")
	}
	if work, err = filepath.Abs(work); err != nil {
		return nil, "", err
	}
	state := os.Getenv("REALRS_STATE_DIR")
	if state == "" {
		state = filepath.Join(work, "state-fakers-realrsdiff")
	}
	env := append(os.Environ(), "REALRS_WORK="+work, "REALRS_STATE_DIR="+state, "REALRS_AS_PORT=0", "REALRS_RS_PORT=0")
	if _, err := exec.LookPath("npm"); err != nil && os.Getenv("REALRS_NPM_REGISTRY") == "" && os.Getenv("npm_config_registry") == "" {
		env = append(env, "REALRS_NPM_REGISTRY=https://registry.npmjs.org") // start.sh asks npm otherwise
	}
	// The first start installs Node and 70 MB of packages: minutes, not seconds.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(kitDir, "start.sh"))
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, "", fmt.Errorf("%s/start.sh: %v\n%s", kitDir, err, tail(stderr.String(), 40))
	}
	stateDir := state
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "state_dir="); ok {
			stateDir = v
		}
	}
	stop := func() {
		cmd := exec.Command("bash", filepath.Join(kitDir, "stop.sh"))
		cmd.Env = env
		_ = cmd.Run()
	}
	k, err = readKit(stateDir)
	if err != nil {
		stop()
		return nil, "", err
	}
	k.stop = stop
	return k, "", k.ping()
}

func readKit(dir string) (*kit, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "state.json"))
	if err != nil {
		return nil, err
	}
	var st struct {
		RSURL            string                   `json:"rs_url"`
		OwnerTokenFile   string                   `json:"owner_token_file"`
		ClientTokenFiles map[string]string        `json:"client_token_files"`
		Connections      map[string]kitConnection `json:"connections"`
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		return nil, fmt.Errorf("%s/state.json: %v", dir, err)
	}
	read := func(path string) (string, error) {
		b, err := os.ReadFile(path)
		return strings.TrimSpace(string(b)), err
	}
	k := &kit{rsURL: strings.TrimSuffix(st.RSURL, "/"), client: map[string]string{}, conns: st.Connections}
	if k.owner, err = read(st.OwnerTokenFile); err != nil {
		return nil, err
	}
	for label, path := range st.ClientTokenFiles {
		if k.client[label], err = read(path); err != nil {
			return nil, err
		}
	}
	if k.rsURL == "" || k.client["gmail"] == "" || k.client["github"] == "" {
		return nil, fmt.Errorf("%s/state.json: want rs_url and the gmail and github client tokens", dir)
	}
	return k, nil
}

// ping checks that the kit's RS answers its gmail token.
func (k *kit) ping() error {
	req, _ := http.NewRequest(http.MethodGet, k.rsURL+"/v1/streams", nil)
	req.Header.Set("Authorization", "Bearer "+k.client["gmail"])
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return fmt.Errorf("the reference RS at %s does not answer: %v", k.rsURL, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the reference RS at %s answers /v1/streams with %d: are the tokens of this start?", k.rsURL, resp.StatusCode)
	}
	return nil
}

func tail(s string, lines int) string {
	parts := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(parts[max(0, len(parts)-lines):], "\n")
}

var (
	kitOnce    sync.Once
	theKit     *kit
	kitSkip    string
	kitFailure error
)

// TestMain stops the kit's server after the tests, if a test started it.
func TestMain(m *testing.M) {
	code := m.Run()
	if theKit != nil && theKit.stop != nil {
		theKit.stop()
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
		theKit, kitSkip, kitFailure = startKit()
	})
	switch {
	case kitFailure != nil:
		t.Fatalf("the reference RS kit did not start: %v", kitFailure)
	case kitSkip != "":
		t.Skip(kitSkip)
	}
	return theKit
}
