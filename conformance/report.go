package conformance

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance/termsafe"
)

// version is set with -ldflags "-X github.com/pdpp-connect/mcpcheck/conformance.version=…".
var version = ""

// Version is the build version, falling back to the module version.
func Version() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// WriteText writes the human report: one line per scenario grouped by seed,
// failure details indented under their line, then the footprint and totals.
// Text from the target is escaped (termsafe): a one-line field as one line,
// a message line by line, indented, so none can pass for a verdict line.
func (r *Report) WriteText(w io.Writer) {
	line := termsafe.Line
	fmt.Fprintf(w, "%s\ntarget: %s\n", r.Tool, line(r.Target))
	if r.TargetError != nil {
		kind := "unreachable"
		if !r.TargetError.Unreachable {
			kind = "authentication rejected"
		}
		fmt.Fprintf(w, "\nTARGET ERROR (%s): %s\n", kind, line(r.TargetError.Reason))
	}
	group := ""
	for _, row := range r.Rows {
		if row.Group != group {
			group = row.Group
			fmt.Fprintf(w, "\n%s\n", group)
		}
		switch {
		case row.Result != nil:
			res := row.Result
			fmt.Fprintf(w, "  %-7s %s", strings.ToUpper(string(res.Verdict)), row.Name)
			for _, e := range res.Entries {
				fmt.Fprintf(w, "  [%s=%s]", line(e.Name), line(e.Value))
			}
			fmt.Fprintln(w)
			indent := func(prefix, s string) {
				for _, l := range strings.Split(s, "\n") {
					fmt.Fprintf(w, "            %s%s\n", prefix, termsafe.String(l))
				}
			}
			if row.Baseline != "" {
				indent("baseline: ", row.Baseline)
			}
			if res.Message != "" {
				indent("", res.Message)
			}
			for _, req := range row.Requires {
				indent("requires: ", req)
			}
			for _, c := range res.Calls {
				indent("call: ", c)
			}
			if row.Reproduce != "" {
				indent("reproduce: ", row.Reproduce)
			}
		case row.Status == Checked:
			fmt.Fprintf(w, "  %-7s %s  not run: the target could not be reached\n", "ERROR", row.Name)
		default:
			fmt.Fprintf(w, "  %-7s %s  %s\n", strings.ToUpper(string(row.Status)), row.Name, line(row.Reason))
		}
	}
	if r.Footprint != nil {
		fmt.Fprintf(w, "\nFootprint (tools/list as received on the wire; tokens are o200k_base):\n")
		r.Footprint.WriteTable(w)
	}
	if g := r.Golden; g != nil {
		fmt.Fprintf(w, "\nGoldens in %s:\n", line(g.Dir))
		for _, f := range g.Files {
			fmt.Fprintf(w, "  %-8s %s\n", f.Status, line(f.Name))
		}
		for _, c := range g.Changes {
			kind := "non-breaking"
			if c.Breaking {
				kind = "BREAKING"
			}
			fmt.Fprintf(w, "  %-12s %s: %s\n", kind, line(c.Tool), line(c.What))
		}
		if g.failed() {
			fmt.Fprintf(w, "  review the drift, then rewrite with --update-golden\n")
		}
	}
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "\nWARNING: %s\n", line(warn))
	}
	t := r.Totals
	fmt.Fprintf(w, "\n%d scenarios: %d passed, %d failed, %d skipped, %d errors, %d pending, %d manual",
		t.Scenarios, t.Passed, t.Failed, t.Skipped, t.Errors, t.Pending, t.Manual)
	if t.Expected > 0 || t.Stale > 0 {
		fmt.Fprintf(w, ", %d expected failures, %d stale baseline entries", t.Expected, t.Stale)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "exit %d (%s)\n", r.ExitCode(), exitMeaning[r.ExitCode()])
}

var exitMeaning = map[int]string{
	ExitPass: "pass", ExitFail: "failures", ExitUsage: "usage", ExitIncomplete: "incomplete: skipped checks",
	ExitUnreachable: "target unreachable", ExitAuth: "authentication rejected",
}

// WriteJSON writes the machine report (schema mcpcheck.report/v1).
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// junitCounts are the totals both <testsuites> and <testsuite> carry.
type junitCounts struct {
	Tests   int    `xml:"tests,attr"`
	Fail    int    `xml:"failures,attr"`
	Errors  int    `xml:"errors,attr"`
	Skipped int    `xml:"skipped,attr"`
	Time    string `xml:"time,attr"`
}

type junitSuites struct {
	XMLName xml.Name `xml:"testsuites"`
	Name    string   `xml:"name,attr"`
	junitCounts
	Suites []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name string `xml:"name,attr"`
	junitCounts
	Props []junitProp `xml:"properties>property,omitempty"`
	Cases []junitCase `xml:"testcase"`
}

type junitProp struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

// WriteJUnit writes a JUnit XML report: one testcase per scenario; pending
// and manual scenarios are skipped with their reason.
func (r *Report) WriteJUnit(w io.Writer) error {
	s := junitSuite{Name: "mcpcheck", junitCounts: junitCounts{Time: secs(r.Duration.Seconds())}, Props: []junitProp{{"target", r.Target}, {"target_kind", string(r.TargetKind)}}}
	if r.TargetError != nil {
		s.Cases = append(s.Cases, junitCase{Name: "target", Classname: "mcpcheck", Error: &junitMessage{Message: r.TargetError.Reason}})
	}
	for _, row := range r.Rows {
		c := junitCase{Name: row.Name, Classname: "mcpcheck.seed" + row.Seed, Time: "0"}
		switch {
		case row.Result != nil:
			c.Time = secs(row.Result.Duration.Seconds())
			body := row.Result.Message
			for _, req := range row.Requires {
				body += "\nrequires: " + req
			}
			for _, call := range row.Result.Calls {
				body += "\ncall: " + call
			}
			if row.Reproduce != "" {
				body += "\nreproduce: " + row.Reproduce
			}
			msg := &junitMessage{Message: FirstLine(row.Result.Message), Body: body}
			switch {
			case strings.HasPrefix(row.Baseline, "expected"):
				c.Skipped = &junitMessage{Message: row.Baseline, Body: body}
			case strings.HasPrefix(row.Baseline, "stale"):
				c.Failure = &junitMessage{Message: row.Baseline}
			case row.Result.Verdict == Fail:
				c.Failure = msg
			case row.Result.Verdict == Error:
				c.Error = msg
			case row.Result.Verdict == Skip:
				c.Skipped = msg
			}
		case row.Status == Checked:
			c.Error = &junitMessage{Message: "not run: the target could not be reached"}
		default:
			c.Skipped = &junitMessage{Message: string(row.Status) + ": " + row.Reason}
		}
		s.Cases = append(s.Cases, c)
	}
	for _, c := range s.Cases {
		s.Tests++
		switch {
		case c.Failure != nil:
			s.Fail++
		case c.Error != nil:
			s.Errors++
		case c.Skipped != nil:
			s.Skipped++
		}
	}
	doc := junitSuites{Name: "mcpcheck", junitCounts: s.junitCounts, Suites: []junitSuite{s}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func secs(f float64) string { return fmt.Sprintf("%.3f", f) }
