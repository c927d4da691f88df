// Package realrskit starts and reads the real PDPP reference RS: the
// upstream source pinned by checksum (archive.go), and mcpcheck's own
// launcher for it (kit/, see its README), for mcpcheck --rs real and the
// test packages that run against it: fakers/realrsdiff and integration/realrs.
// Each caller starts an instance of its own (its own state dir and free
// ports, the install shared under REALRS_WORK) and stops only what it
// started. The adapter never links it; mcpcheck's command line does.
package realrskit

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Help says how to point a test at a source archive when none is local.
const Help = "run make realrs once (it downloads the pinned source and caches it under .cache/realrs) or name a local copy of " +
	"pdpp-reference-fceb768.tgz in REALRS_TARBALL"

// TokenLifetime is how long the kit's tokens stay valid after a start
// (expires_in 600 in state.json).
const TokenLifetime = 600 * time.Second

// runMargin is how much of TokenLifetime a test run may need: a kit whose
// tokens have less left is restarted rather than reused.
const runMargin = 4 * time.Minute

// startTimeout bounds start.sh: a first start downloads about 127 MB.
const startTimeout = 15 * time.Minute

// stopTimeout bounds stop.sh.
const stopTimeout = time.Minute

// Kit is a running reference RS: its URL and token files.
type Kit struct {
	// URL is the RS's base URL, without a trailing slash.
	URL string
	// ClientTokenFiles maps a connector (github, reddit, gmail) to its
	// client token file.
	ClientTokenFiles map[string]string
	// OwnerTokenFile is the owner token file, "" when there is none.
	OwnerTokenFile string

	stateDir string
	stop     func() error // nil unless Start started the server
}

// Tokens are a kit's tokens, read from its token files.
type Tokens struct {
	Client map[string]string // connector -> client token
	Owner  string            // "" when there is none
}

// Connection is one seeded connection, as state.json records it.
type Connection struct {
	ConnectorID  string         `json:"connector_id"`
	SourceID     string         `json:"source_id"`
	ConnectionID string         `json:"connection_id"`
	DisplayName  string         `json:"display_name"`
	Records      map[string]int `json:"records"`
}

// ModuleRoot is the directory holding go.mod, from the working directory up
// (a test's package directory).
func ModuleRoot() (string, error) {
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

// Start starts an instance of the kit for the test package named instance
// (say "fakers-realrsdiff"): the install under REALRS_WORK (default
// <module>/.cache/realrs, reused across runs), free ports, and a state dir
// of its own, <work>/state-<instance>-<checkout hash> (REALRS_STATE_DIR
// overrides it), so that it never stops a server another package or
// checkout started. A kit REALRS_STATE_DIR names that is already up with
// fresh tokens is used as it is. The source archive is REALRS_TARBALL,
// else the copy beside the checkout (../shared/realrs, in CI), else the
// cached download; download says whether to download it when there is
// none. skip, with k and err nil, says why there is no kit to use and how
// to get one.
func Start(instance string, download bool) (k *Kit, skip string, err error) {
	root, err := ModuleRoot()
	if err != nil {
		return nil, "", err
	}
	given := os.Getenv("REALRS_STATE_DIR")
	if given != "" && fileExists(filepath.Join(given, "ready")) && !tokensStale(given) {
		if k, err = attachState(given); err == nil {
			err = k.Ping()
		}
		return k, "", err
	}
	work := os.Getenv("REALRS_WORK")
	if work == "" {
		work = filepath.Join(root, ".cache", "realrs")
	}
	state := given
	if state == "" {
		state = filepath.Join(work, "state-"+instance+"-"+checkoutHash(root))
	}
	beside := filepath.Join(filepath.Dir(root), "shared", "realrs", Pinned.Name)
	if !fileExists(beside) {
		beside = ""
	}
	o := Options{Work: work, State: state, Archive: ArchiveSource{
		Tarball: os.Getenv("REALRS_TARBALL"), Beside: beside, Download: download, URL: os.Getenv("REALRS_URL"), Log: os.Stderr}}
	// A kit left running is restarted only when its state is this
	// checkout's own; another's is not ours to stop.
	o.mayRestart = given == "" || strings.HasPrefix(given, filepath.Join(root, ".cache")+string(filepath.Separator))
	k, err = Launch(context.Background(), o)
	if errors.Is(err, ErrNoArchive) {
		return nil, fmt.Sprintf("%s (REALRS_TARBALL is unset and none is cached under %s): %s", ErrNoArchive, filepath.Join(work, "archive"), Help), nil
	}
	return k, "", err
}

// Options place one instance of the real RS.
type Options struct {
	Work    string        // the install, shared by instances (toolchain, source, packages)
	State   string        // this instance's state dir: tokens, log, database
	Archive ArchiveSource // where the pinned source archive comes from
	// mayRestart lets Launch restart a server left running in State whose
	// tokens are stale.
	mayRestart bool
}

// Launch starts an instance in o.State, or uses the one running there
// when its tokens are fresh. Its Stop stops it only if Launch started it.
func Launch(ctx context.Context, o Options) (*Kit, error) {
	work, err := filepath.Abs(o.Work)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, err
	}
	o.Archive.CacheDir = filepath.Join(work, "archive")
	archive, err := Pinned.Archive(ctx, o.Archive)
	if err != nil {
		return nil, err
	}
	kitDir, err := unpackKit(work)
	if err != nil {
		return nil, fmt.Errorf("unpack the reference RS launcher into %s: %w", work, err)
	}
	env := kitEnv(work, o.State, archive)
	vals, already, err := runStart(ctx, kitDir, env, o.Archive.Log)
	if err != nil {
		if ctx.Err() != nil {
			// Interrupted mid-start: what start.sh left running goes too.
			_ = runStop(kitDir, env)
		}
		return nil, err
	}
	stop := func() error { return runStop(kitDir, env) }
	if already && tokensStale(vals["state_dir"]) {
		if !o.mayRestart {
			return nil, fmt.Errorf("the reference RS running with state %s has expired tokens (they live %s from its start); "+
				"stop it with stop.sh, or set REALRS_STATE_DIR to a state dir of your own", vals["state_dir"], TokenLifetime)
		}
		if err := stop(); err != nil {
			return nil, err
		}
		if vals, already, err = runStart(ctx, kitDir, env, o.Archive.Log); err != nil {
			return nil, err
		}
	}
	k, err := attachState(vals["state_dir"])
	if err != nil {
		if !already {
			_ = stop()
		}
		return nil, err
	}
	if !already {
		k.stop = stop
	}
	if err := k.Ping(); err != nil {
		_ = k.Stop()
		return nil, err
	}
	return k, nil
}

// Attach is the running RS at url whose token files (client_token_<connector>,
// optionally owner_token) are in tokenDir, such as a kit's state dir: the
// PDPP_REAL_RS_URL and PDPP_REAL_RS_TOKEN_DIR override.
func Attach(url, tokenDir string) (*Kit, error) {
	k := &Kit{URL: strings.TrimRight(url, "/"), ClientTokenFiles: map[string]string{}, stateDir: tokenDir}
	files, _ := filepath.Glob(filepath.Join(tokenDir, "client_token_*"))
	for _, f := range files {
		k.ClientTokenFiles[strings.TrimPrefix(filepath.Base(f), "client_token_")] = f
	}
	if len(k.ClientTokenFiles) == 0 {
		return nil, fmt.Errorf("no client_token_<connector> file in %s", tokenDir)
	}
	if owner := filepath.Join(tokenDir, "owner_token"); fileExists(owner) {
		k.OwnerTokenFile = owner
	}
	return k, nil
}

// Stop stops the server if Start started it, and does nothing otherwise.
func (k *Kit) Stop() error {
	if k == nil || k.stop == nil {
		return nil
	}
	stop := k.stop
	k.stop = nil
	return stop()
}

// Connectors are the connectors with a client token, sorted.
func (k *Kit) Connectors() []string {
	out := make([]string, 0, len(k.ClientTokenFiles))
	for c := range k.ClientTokenFiles {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// Tokens reads the kit's token files.
func (k *Kit) Tokens() (Tokens, error) {
	t := Tokens{Client: map[string]string{}}
	for c, f := range k.ClientTokenFiles {
		v, err := readToken(f)
		if err != nil {
			return Tokens{}, err
		}
		t.Client[c] = v
	}
	if k.OwnerTokenFile != "" {
		v, err := readToken(k.OwnerTokenFile)
		if err != nil {
			return Tokens{}, err
		}
		t.Owner = v
	}
	return t, nil
}

// Connections are the seeded connections by name (github, gmail_work, …),
// from the kit's state.json.
func (k *Kit) Connections() (map[string]Connection, error) {
	var st struct {
		Connections map[string]Connection `json:"connections"`
	}
	if err := readState(k.stateDir, &st); err != nil {
		return nil, err
	}
	return st.Connections, nil
}

// Ping checks that the RS answers /v1/streams with a client token of this
// start (gmail's when there is one).
func (k *Kit) Ping() error {
	conns := k.Connectors()
	if len(conns) == 0 {
		return fmt.Errorf("the reference RS at %s has no client token", k.URL)
	}
	conn := conns[0]
	if _, ok := k.ClientTokenFiles["gmail"]; ok {
		conn = "gmail"
	}
	token, err := readToken(k.ClientTokenFiles[conn])
	if err != nil {
		return err
	}
	req, err := http.NewRequest(http.MethodGet, k.URL+"/v1/streams", nil)
	if err != nil {
		return fmt.Errorf("the reference RS URL %q: %v", k.URL, err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return fmt.Errorf("the reference RS at %s does not answer: %v", k.URL, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the reference RS at %s answers /v1/streams with %d: are the tokens of this start?", k.URL, resp.StatusCode)
	}
	return nil
}

// attachState is the kit whose state dir is dir, its URL from state.json.
func attachState(dir string) (*Kit, error) {
	var st struct {
		RSURL string `json:"rs_url"`
	}
	if err := readState(dir, &st); err != nil {
		return nil, err
	}
	if st.RSURL == "" {
		return nil, fmt.Errorf("%s/state.json: no rs_url", dir)
	}
	return Attach(st.RSURL, dir)
}

func readState(dir string, into any) error {
	raw, err := os.ReadFile(filepath.Join(dir, "state.json"))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, into); err != nil {
		return fmt.Errorf("%s/state.json: %v", dir, err)
	}
	return nil
}

// tokensStale reports tokens minted too long ago for a test run to finish
// with them: the ready file is written right after they are minted.
func tokensStale(stateDir string) bool {
	fi, err := os.Stat(filepath.Join(stateDir, "ready"))
	return err != nil || time.Since(fi.ModTime()) > TokenLifetime-runMargin
}

// runStart runs start.sh; already says the kit was running before. Its
// progress (what it downloads, installs and builds, and where) goes to
// progress too, when that is set.
func runStart(ctx context.Context, kitDir string, env []string, progress io.Writer) (vals map[string]string, already bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(kitDir, "start.sh"))
	var out, log bytes.Buffer
	cmd.Env, cmd.Stdout, cmd.Stderr = env, &out, &log
	if progress != nil {
		cmd.Stderr = io.MultiWriter(&log, progress)
	}
	if err := cmd.Run(); err != nil {
		return nil, false, fmt.Errorf("%s/start.sh: %w\n%s", kitDir, err, tail(log.String(), 40))
	}
	vals = keyValues(out.String())
	if vals["rs_url"] == "" || vals["state_dir"] == "" {
		return nil, false, fmt.Errorf("%s/start.sh printed no rs_url/state_dir:\n%s", kitDir, out.String())
	}
	return vals, strings.Contains(log.String(), "already running"), nil
}

func runStop(kitDir string, env []string) error {
	// Not the caller's context: a stop must run after an interrupt too.
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(kitDir, "stop.sh"))
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s/stop.sh: %w\n%s", kitDir, err, tail(string(out), 20))
	}
	return nil
}

// kitEnv is the environment of start.sh and stop.sh: one work dir, one
// state dir, free ports, and the npm registry's default when no npm client
// can name one (start.sh asks npm otherwise).
func kitEnv(work, state, archive string) []string {
	env := append(os.Environ(), "REALRS_WORK="+work, "REALRS_STATE_DIR="+state, "REALRS_AS_PORT=0", "REALRS_RS_PORT=0", "REALRS_SRC_TGZ="+archive)
	if os.Getenv("REALRS_NPM_REGISTRY") == "" && os.Getenv("npm_config_registry") == "" {
		if _, err := exec.LookPath("npm"); err != nil {
			env = append(env, "REALRS_NPM_REGISTRY=https://registry.npmjs.org/")
		}
	}
	return env
}

// checkoutHash tells checkouts that share one REALRS_WORK apart.
func checkoutHash(root string) string {
	h := fnv.New32a()
	h.Write([]byte(root))
	return fmt.Sprintf("%08x", h.Sum32())
}

// keyValues are the key=value lines start.sh prints.
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

// tail is the last n lines of s, for a log in an error message.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

func readToken(path string) (string, error) {
	b, err := os.ReadFile(path)
	return strings.TrimSpace(string(b)), err
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
