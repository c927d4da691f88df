package conformance

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/onsi/ginkgo/v2/types"
)

// Labels are an entry's labels, the same for the Ginkgo suite's
// --label-filter and mcpcheck's --label: its id ("S029"), "seed:001" (or
// "seed:contract"), "level:required" or "level:recommended", "mode:bb+d",
// one "tool:fetch" per read tool the scenario is about, and "manual" for a
// scenario MCP traffic cannot judge.
func (e Entry) Labels() []string {
	out := []string{e.Scenario.ID, "seed:" + e.Scenario.Seed, "level:" + string(e.Scenario.Level)}
	if c := e.Check; c != nil {
		out = append(out, "mode:"+string(c.Mode))
		for _, tool := range c.Tools {
			out = append(out, "tool:"+tool)
		}
	}
	if e.Status == Manual {
		out = append(out, "manual")
	}
	return out
}

// Filter narrows entries as Ginkgo does: label is a label-filter
// expression (`seed:001 && !mode:host`, Ginkgo's syntax), and an entry
// whose id-slug name matches any skip pattern is left out.
func Filter(entries []Entry, label string, skip []string) ([]Entry, error) {
	keep := func([]string) bool { return true }
	if label != "" {
		f, err := types.ParseLabelFilter(label)
		if err != nil {
			return nil, &UsageError{fmt.Sprintf("--label %q: %s", label, plainError(err))}
		}
		keep = f
	}
	var skips []*regexp.Regexp
	for _, s := range skip {
		re, err := regexp.Compile(s)
		if err != nil {
			return nil, &UsageError{fmt.Sprintf("--skip %q: %v", s, err)}
		}
		skips = append(skips, re)
	}
	var out []Entry
next:
	for _, e := range entries {
		if !keep(e.Labels()) {
			continue
		}
		for _, re := range skips {
			if re.MatchString(e.Scenario.Name()) {
				continue next
			}
		}
		out = append(out, e)
	}
	if len(out) == 0 && (label != "" || len(skip) > 0) {
		return nil, &UsageError{"--label and --skip leave no scenario to run"}
	}
	return out, nil
}

var colour = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// plainError is a Ginkgo error on one line, without its colour codes and
// its "learn more" link.
func plainError(err error) string {
	s := colour.ReplaceAllString(err.Error(), "")
	s, _, _ = strings.Cut(s, "Learn more at:")
	return strings.Join(strings.Fields(s), " ")
}
