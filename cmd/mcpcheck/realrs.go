package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/internal/realrskit"
	"github.com/spf13/pflag"
)

// rsOptions choose the RS a --stdio adapter reads: mcpcheck's fixture RS,
// or the real PDPP reference RS, which mcpcheck starts, seeds and stops.
type rsOptions struct{ which string }

// realGrants are the real RS's client grants, one per connector; gmail's
// spans two connections, so the ambiguity scenarios have a subject.
var realGrants = []string{"gmail", "github", "reddit"}

func (o *rsOptions) addFlags(f *pflag.FlagSet) {
	f.StringVar(&o.which, "rs", "fixture", "the RS a --stdio adapter reads: fixture (mcpcheck's, which it controls), or real[:gmail|github|reddit], "+
		"the real PDPP reference RS with that grant's client token (default gmail), started and stopped by mcpcheck "+
		"(the first start downloads about 140 MB; REALRS_TARBALL names a local source archive)")
}

// grant validates --rs against the target flags: the real RS's grant, or
// "" for the fixture RS.
func (o *rsOptions) grant(stdio bool, fixture string) (string, error) {
	kind, grant, _ := strings.Cut(o.which, ":")
	switch {
	case o.which == "fixture" || o.which == "":
		return "", nil
	case kind != "real":
		return "", fmt.Errorf("--rs %q: want fixture or real[:%s]", o.which, strings.Join(realGrants, "|"))
	case !stdio:
		return "", fmt.Errorf("--rs %s needs --stdio: the adapter under test is started to read it (a --url deployment reads the RS it is configured with)", o.which)
	case fixture != "":
		return "", fmt.Errorf("--fixture names mcpcheck's fixture RS; --rs %s reads the real RS's own seeded data", o.which)
	case grant == "":
		return "gmail", nil
	case !slices.Contains(realGrants, grant):
		return "", fmt.Errorf("--rs %q: the real RS's client grants are %s", o.which, strings.Join(realGrants, ", "))
	}
	return grant, nil
}

// startRealRS starts the real RS for grant (or attaches to the one
// PDPP_REAL_RS_URL and PDPP_REAL_RS_TOKEN_DIR name) and points spec at
// it. stop stops what it started.
func startRealRS(ctx context.Context, spec *conformance.TargetSpec, grant string, getenv func(string) string, log io.Writer) (stop func(), err error) {
	var (
		kit   *realrskit.Kit
		state string // this run's state dir, removed after: its database and tokens are of no later use
	)
	if url := getenv("PDPP_REAL_RS_URL"); url != "" {
		dir := getenv("PDPP_REAL_RS_TOKEN_DIR")
		if dir == "" {
			return nil, usageError{fmt.Errorf("PDPP_REAL_RS_URL is set but PDPP_REAL_RS_TOKEN_DIR, the folder of its token files, is not")}
		}
		if kit, err = realrskit.Attach(url, dir); err == nil {
			err = kit.Ping()
		}
	} else {
		work := getenv("REALRS_WORK")
		if work == "" {
			cache, cerr := os.UserCacheDir()
			if cerr != nil {
				return nil, fmt.Errorf("--rs real: no cache dir for the real RS's install (set REALRS_WORK): %w", cerr)
			}
			work = filepath.Join(cache, "mcpcheck", "realrs")
		}
		fmt.Fprintf(log, "mcpcheck: starting the real PDPP reference RS (install in %s)\n", work)
		state = filepath.Join(work, fmt.Sprintf("state-mcpcheck-%d", os.Getpid()))
		kit, err = realrskit.Launch(ctx, realrskit.Options{
			Work:    work,
			State:   state,
			Archive: realrskit.ArchiveSource{Tarball: getenv("REALRS_TARBALL"), Download: true, URL: getenv("REALRS_URL"), Log: log},
		})
	}
	if err != nil {
		if state != "" {
			_ = os.RemoveAll(state)
		}
		return nil, &conformance.TargetError{Unreachable: true, Reason: "--rs real: the real PDPP reference RS: " + err.Error()}
	}
	stop = func() {
		if err := kit.Stop(); err != nil {
			fmt.Fprintln(log, "mcpcheck: stopping the real RS:", err)
			return
		}
		if state != "" {
			_ = os.RemoveAll(state)
		}
	}
	tokens, err := kit.Tokens()
	if err != nil || tokens.Client[grant] == "" {
		stop()
		return nil, &conformance.TargetError{Unreachable: true, Reason: fmt.Sprintf("--rs real: the real RS at %s has no %s client token (%v)", kit.URL, grant, err)}
	}
	spec.RS = &conformance.ExternalRS{Name: "the real PDPP reference RS (" + grant + " grant)", URL: kit.URL, ClientToken: tokens.Client[grant], OwnerToken: tokens.Owner}
	if spec.Redactor != nil {
		spec.Redactor.Add(tokens.Client[grant], tokens.Owner)
	}
	return stop, nil
}
