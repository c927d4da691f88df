package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/spf13/pflag"
)

// rsControlOptions reach the control plane of the pdpp-fake-rs a --url
// adapter reads from, so the checks that need a controlled RS run there too.
type rsControlOptions struct {
	url, tokenFile string
}

func (o *rsControlOptions) addFlags(f *pflag.FlagSet) {
	f.StringVar(&o.url, "rs-control", "", "control plane URL of the pdpp-fake-rs the --url adapter reads from (its control_url= line); enables the checks that need a controlled RS")
	f.StringVar(&o.tokenFile, "rs-control-token-file", "", "file holding the --rs-control token (its control_token= line; else $MCPCHECK_RS_CONTROL_TOKEN; never printed)")
}

// apply validates the flags and sets the spec's control plane.
func (o *rsControlOptions) apply(s *conformance.TargetSpec, getenv func(string) string) error {
	switch {
	case o.url == "" && o.tokenFile != "":
		return errors.New("--rs-control-token-file needs --rs-control")
	case o.url == "":
		return nil
	case s.URL == "":
		return errors.New("--rs-control applies to --url targets (the reference adapter and --stdio run their own fixture RS)")
	case !strings.HasPrefix(o.url, "http://") && !strings.HasPrefix(o.url, "https://"):
		return fmt.Errorf("--rs-control %q: want an http:// or https:// URL", o.url)
	}
	tok := strings.TrimSpace(getenv("MCPCHECK_RS_CONTROL_TOKEN"))
	if o.tokenFile != "" {
		data, err := os.ReadFile(o.tokenFile)
		if err != nil {
			return fmt.Errorf("--rs-control-token-file: %w", err)
		}
		if tok = strings.TrimSpace(string(data)); tok == "" || strings.ContainsAny(tok, "\r\n") {
			return fmt.Errorf("--rs-control-token-file %s: want exactly one non-empty line", o.tokenFile)
		}
	}
	if tok == "" {
		return errors.New("--rs-control needs a token: --rs-control-token-file or $MCPCHECK_RS_CONTROL_TOKEN")
	}
	s.RSControl, s.RSControlToken = o.url, tok
	return nil
}
