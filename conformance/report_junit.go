package conformance

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance/termsafe"
	"github.com/pdpp-connect/mcpcheck/scenarios"
)

// A clauseKind is how one clause counts in the totals and in JUnit.
type clauseKind string

const (
	kindPassed            clauseKind = "passed"
	kindFailed            clauseKind = "failed"
	kindFailedRecommended clauseKind = "failed_recommended"
	kindSkipped           clauseKind = "skipped" // not exercised, not applicable, manual, pending, expected
	kindError             clauseKind = "error"
)

// ClauseTotals counts clauses by how they fared.
type ClauseTotals struct {
	Total             int `json:"total"`
	Passed            int `json:"passed"`
	Failed            int `json:"failed"`
	FailedRecommended int `json:"failed_recommended"`
	Skipped           int `json:"skipped"`
	Errors            int `json:"errors"`
}

func (t *ClauseTotals) add(k clauseKind) {
	t.Total++
	switch k {
	case kindPassed:
		t.Passed++
	case kindFailed:
		t.Failed++
	case kindFailedRecommended:
		t.FailedRecommended++
	case kindSkipped:
		t.Skipped++
	case kindError:
		t.Errors++
	}
}

// A clauseView is one clause of a report row as the totals and JUnit see
// it: every row has one per clause of its scenario, whatever happened.
type clauseView struct {
	clause  scenarios.Clause
	kind    clauseKind
	message string // one line
	body    string
}

// clauseViews are a row's clauses, from its clause results when the check
// judged clause by clause, else from the scenario's verdict as a whole.
func (r *Report) clauseViews(row Row) []clauseView {
	res := row.Result
	expected := strings.HasPrefix(row.Baseline, "expected")
	out := make([]clauseView, 0, len(row.clauses))
	for i, cl := range row.clauses {
		v := clauseView{clause: cl}
		switch {
		case res == nil && row.Status == Checked:
			v.kind, v.message = kindError, "not run: the target could not be reached"
		case res == nil:
			v.kind, v.message = kindSkipped, string(row.Status)+": "+row.Reason
		case res.Verdict == Error:
			v.kind, v.message = kindError, FirstLine(res.Message)
		case res.Clauses != nil && i < len(res.Clauses):
			v = r.judgedView(row, res.Clauses[i], cl)
		default: // judged as a whole
			v.kind, v.message = wholeKind(r, res), FirstLine(res.Message)
		}
		if v.body == "" && res != nil {
			v.body = res.Message
		}
		if expected && (v.kind == kindFailed || v.kind == kindFailedRecommended) {
			v.kind, v.message = kindSkipped, row.Baseline
		}
		if strings.HasPrefix(row.Baseline, "stale") {
			v.kind, v.message = kindFailed, row.Baseline
		}
		out = append(out, v)
	}
	return out
}

func (r *Report) judgedView(row Row, c ClauseResult, cl scenarios.Clause) clauseView {
	v := clauseView{clause: cl}
	switch c.Outcome {
	case Held:
		v.kind = kindPassed
	case Broken:
		v.kind = kindFailed
		// --strict changes the exit code, not the label: a recommended
		// failure is counted as one everywhere.
		if c.FailLevel() == scenarios.Recommended {
			v.kind = kindFailedRecommended
		}
		var b strings.Builder
		for _, f := range c.Failures {
			fmt.Fprintf(&b, "[%s] %s\n", f.Level, f.Message)
			if f.Witness != nil {
				fmt.Fprintf(&b, "%s\n", f.Witness.Line())
			}
		}
		for _, call := range c.Calls {
			fmt.Fprintf(&b, "call: %s\n", call)
		}
		if row.Reproduce != "" {
			fmt.Fprintf(&b, "reproduce: %s\n", row.Reproduce)
		}
		v.message, v.body = FirstLine(c.Failures[0].Message), b.String()
	default:
		v.kind, v.message = kindSkipped, string(c.Outcome)+": "+clauseWhy(c)
	}
	return v
}

// wholeKind is how a clause counts when its check judged the scenario as
// a whole.
func wholeKind(r *Report, res *Result) clauseKind {
	switch {
	case res.Verdict == Pass:
		return kindPassed
	case res.Verdict == Fail && res.FailLevel == scenarios.Recommended:
		return kindFailedRecommended
	case res.Verdict == Fail:
		return kindFailed
	}
	return kindSkipped
}

// clauseWhy is why a clause was not exercised, or what stands in for it.
func clauseWhy(c ClauseResult) string {
	if c.BlockedBy != "" {
		return "blocked by " + c.BlockedBy + ": " + c.Reason
	}
	return c.Reason
}

type junitSuites struct {
	XMLName  xml.Name `xml:"testsuites"`
	Name     string   `xml:"name,attr"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Time     string   `xml:"time,attr"`
	Suites   []junitSuite
}

type junitSuite struct {
	XMLName  xml.Name    `xml:"testsuite"`
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Props    []junitProp `xml:"properties>property,omitempty"`
	Cases    []junitCase `xml:"testcase"`
}

type junitProp struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string `xml:"name,attr"`
	Classname string `xml:"classname,attr"`
	Time      string `xml:"time,attr"`
	// Skipped holds its reason as text: the Jenkins JUnit XSD (junit-4)
	// allows no attribute on <skipped>.
	Skipped *junitText    `xml:"skipped,omitempty"`
	Error   *junitMessage `xml:"error,omitempty"`
	Failure *junitMessage `xml:"failure,omitempty"`
}

type junitText struct {
	Body string `xml:",chardata"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

// WriteJUnit writes a JUnit XML report: a testsuite per scenario, a
// testcase per clause named by its key and text, so a CI page lists each
// broken clause on its own line (docs/REPORT.md). Its counts are
// Totals.Clauses. A recommended failure is a <failure> whose message
// starts "[recommended]": only --strict makes it fail the run.
func (r *Report) WriteJUnit(w io.Writer) error {
	doc := junitSuites{Name: "mcpcheck", Time: secs(r.Duration.Seconds())}
	for _, row := range r.Rows {
		s := junitSuite{Name: row.Name, Time: "0", Props: []junitProp{{"level", string(row.Level)}, {"target", r.Target}, {"target_kind", string(r.TargetKind)}}}
		if res := row.Result; res != nil {
			s.Time = secs(res.Duration.Seconds())
			s.Props = append(s.Props, junitProp{"verdict", string(res.Verdict)})
		}
		if r.TargetError != nil {
			s.Props = append(s.Props, junitProp{"target_error", r.TargetError.Reason})
		}
		for _, v := range r.clauseViews(row) {
			c := junitCase{Name: v.clause.Key + " " + ClipText(v.clause.Text, 160), Classname: "mcpcheck.seed" + row.Seed + "." + row.ID, Time: "0"}
			msg := &junitMessage{Message: v.message, Body: v.body}
			s.Tests++
			switch v.kind {
			case kindFailed:
				c.Failure = msg
				s.Failures++
			case kindFailedRecommended:
				msg.Message = "[recommended] " + msg.Message
				c.Failure = msg
				s.Failures++
			case kindError:
				c.Error = msg
				s.Errors++
			case kindSkipped:
				c.Skipped = &junitText{Body: v.message}
				s.Skipped++
			}
			s.Cases = append(s.Cases, c)
		}
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
		doc.Suites = append(doc.Suites, s)
	}
	b := bytes.NewBufferString(xml.Header)
	enc := xml.NewEncoder(b)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	b.WriteByte('\n')
	// No raw C1, bidi or zero-width character, no workflow command.
	_, err := w.Write(termsafe.XML(b.Bytes()))
	return err
}

func secs(f float64) string { return fmt.Sprintf("%.3f", f) }
