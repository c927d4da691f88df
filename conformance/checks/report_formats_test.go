package checks

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"github.com/pdpp-connect/mcpcheck/scenarios"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pdpp-connect/mcpcheck/adapter/adaptertest"

	junit "github.com/joshdk/go-junit"
	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/fakers"
	"github.com/pdpp-connect/mcpcheck/fakers/hostile"
)

// realReports runs mcpcheck for real against targets chosen so that,
// together, the reports hold every verdict but error, every status, both
// kinds of target error, and every optional field of the formats.
var realReports = sync.OnceValues(func() (map[string]*conformance.Report, error) {
	ctx := context.Background()
	fx, err := conformance.LoadFixture("")
	if err != nil {
		return nil, err
	}
	rs := fakers.New(fx)
	rsURL, shutdown, err := rs.Start("127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	defer func() { _ = shutdown(ctx) }()
	a := mutant("").InProcess
	h, err := a.Handler(rsURL, http.DefaultClient)
	if err != nil {
		return nil, err
	}
	hosted := httptest.NewServer(h)
	defer hosted.Close()
	hostedURL := hosted.URL + a.MCPPath()
	generic := httptest.NewServer(hostile.Generic())
	defer generic.Close()

	configs := map[string]conformance.Config{
		"reference":     {},                                                                        // pass, pending, manual, footprint
		"mutant":        {Target: mutant("drop-tool-fetch"), Only: []string{"S012", "S01"}},        // fail
		"url":           {Target: conformance.TargetSpec{URL: hostedURL, Token: rs.ClientToken()}}, // skip: no local command
		"unreachable":   {Target: conformance.TargetSpec{URL: "http://127.0.0.1:1/mcp", Token: "t", ConnectTimeout: 2 * time.Second}},
		"auth-rejected": {Target: conformance.TargetSpec{URL: hostedURL}}, // no bearer: HTTP 401
		// baseline (expected and stale), golden (changes), calls, requires, reproduce
		"baselined": {Target: mutant("drop-tool-fetch"), Only: []string{"S012", "S013"}, Invocation: []string{"--mutant", "drop-tool-fetch"},
			Baseline:  &conformance.Baseline{ExpectedFailures: map[string]string{"S012": "fetch is missing on purpose", "S013": "believed broken"}},
			GoldenDir: "../../golden/reference"},
		"calls":   {Target: mutant("snippet-as-title"), Only: []string{"S027"}},   // a failure after tool calls
		"generic": {Target: conformance.TargetSpec{URL: generic.URL, Token: "t"}}, // not a PDPP adapter: every row n/a
		// clause results: a failed clause with its calls, and recommended failures
		"clauses":      {Target: mutant("strip-routing-from-aggregate"), Only: []string{"S003", "S012"}},
		"clause-calls": {Target: mutant("hide-search-cursor"), Only: []string{"S023"}}, // calls made inside a failed clause
		"blocked":      {Target: mutant("drop-instructions"), Only: []string{"S001"}},  // clauses blocked by the clause that owns the instructions
	}
	out := map[string]*conformance.Report{}
	for name, cfg := range configs {
		rep, err := run(ctx, cfg)
		if err != nil {
			return nil, err
		}
		out[name] = rep
	}
	return out, nil
})

func mustRealReports(t *testing.T) map[string]*conformance.Report {
	t.Helper()
	reps, err := realReports()
	if err != nil {
		t.Fatal(err)
	}
	return reps
}

func TestJSONReportsMatchTheSchema(t *testing.T) {
	reps := map[string]*conformance.Report{}
	for name, rep := range mustRealReports(t) {
		reps[name] = rep
	}
	// Two more, which need a built adapter and a hostile server: an adapter
	// whose RS is down reaches only error paths (warnings), and a target that
	// stops answering mid-call leaves a check it could not judge (error).
	bin := adaptertest.Binary(t)
	hang := httptest.NewServer(&hostile.Server{Mode: hostile.HangOnCall, Hold: 5 * time.Second})
	defer hang.Close()
	for name, cfg := range map[string]conformance.Config{
		"error-paths": {Target: conformance.TargetSpec{Stdio: bin + " --provider-url http://127.0.0.1:1"}, Only: []string{"S023", "S024", "U03"}},
		"hung":        {Target: conformance.TargetSpec{URL: hang.URL + "/mcp", Token: "t", ConnectTimeout: 2 * time.Second}, Only: []string{"S024"}},
		// a command that dies before answering leaves its stderr's tail
		"crashed": {Target: conformance.TargetSpec{Stdio: `sh -c "echo Traceback >&2; echo boom >&2; exit 1"`}, Only: []string{"S001"}},
	} {
		rep, err := run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		reps[name] = rep
	}
	seen := map[string]bool{}
	for name, rep := range reps {
		var buf bytes.Buffer
		if err := rep.WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
		if err := conformance.ValidateReportJSON(buf.Bytes()); err != nil {
			t.Errorf("%s report: %v", name, err)
		}
		for _, field := range presentFields(t, buf.Bytes()) {
			seen[field] = true
		}
	}
	// The schema forbids unknown fields, so a field a report never carries
	// could drift from it unnoticed: require every optional one to show up.
	for _, want := range []string{
		"target_error", "target_error.unreachable=true", "target_error.stderr_tail", "target_error.unreachable=false", "footprint",
		"scenario.reason", "scenario.result", "result.message", "result.entries", "result.clauses", "result.fail_level",
		"clause.failures", "clause.calls", "clause.reason", "clause.blocked_by", "verdict=partial", "applicability", "applicability.missing",
		"scenario.baseline", "scenario.reproduce", "result.calls", "golden", "golden.changes", "golden.diffs",
		"status=checked", "status=manual", "verdict=pass", "verdict=fail", "verdict=skip", "verdict=error", "verdict=n/a", "warnings",
	} {
		if !seen[want] {
			t.Errorf("no real report carried %s; pick targets that produce it", want)
		}
	}
}

// presentFields names the optional fields and enum values a JSON report holds.
func presentFields(t *testing.T, data []byte) []string {
	t.Helper()
	var doc struct {
		TargetError *struct {
			Unreachable bool
			StderrTail  []string `json:"stderr_tail"`
		} `json:"target_error"`
		Warnings  []string        `json:"warnings"`
		Footprint json.RawMessage `json:"footprint"`
		Golden    *struct {
			Changes []json.RawMessage `json:"changes"`
			Diffs   []json.RawMessage `json:"diffs"`
		} `json:"golden"`
		Applicability *struct {
			Missing []string `json:"missing"`
		} `json:"applicability"`
		Scenarios []struct {
			Status    string `json:"status"`
			Reason    string `json:"reason"`
			Baseline  string `json:"baseline"`
			Reproduce string `json:"reproduce"`
			Result    *struct {
				Verdict   string            `json:"verdict"`
				FailLevel string            `json:"fail_level"`
				Message   string            `json:"message"`
				Entries   []json.RawMessage `json:"entries"`
				Calls     []string          `json:"calls"`
				Clauses   []struct {
					Reason    string            `json:"reason"`
					BlockedBy string            `json:"blocked_by"`
					Failures  []json.RawMessage `json:"failures"`
					Calls     []string          `json:"calls"`
				} `json:"clauses"`
			} `json:"result"`
		} `json:"scenarios"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var out []string
	if doc.TargetError != nil {
		out = append(out, "target_error", "target_error.unreachable="+map[bool]string{true: "true", false: "false"}[doc.TargetError.Unreachable])
		if len(doc.TargetError.StderrTail) > 0 {
			out = append(out, "target_error.stderr_tail")
		}
	}
	if doc.Footprint != nil {
		out = append(out, "footprint")
	}
	if doc.Applicability != nil {
		out = append(out, "applicability")
		if len(doc.Applicability.Missing) > 0 {
			out = append(out, "applicability.missing")
		}
	}
	if len(doc.Warnings) > 0 {
		out = append(out, "warnings")
	}
	if doc.Golden != nil {
		out = append(out, "golden")
		if len(doc.Golden.Changes) > 0 {
			out = append(out, "golden.changes")
		}
		if len(doc.Golden.Diffs) > 0 {
			out = append(out, "golden.diffs")
		}
	}
	for _, s := range doc.Scenarios {
		out = append(out, "status="+s.Status)
		for name, v := range map[string]bool{"scenario.reason": s.Reason != "", "scenario.baseline": s.Baseline != "",
			"scenario.reproduce": s.Reproduce != ""} {
			if v {
				out = append(out, name)
			}
		}
		if r := s.Result; r != nil {
			out = append(out, "scenario.result", "verdict="+r.Verdict)
			if r.Message != "" {
				out = append(out, "result.message")
			}
			if len(r.Entries) > 0 {
				out = append(out, "result.entries")
			}
			if len(r.Calls) > 0 {
				out = append(out, "result.calls")
			}
			if r.FailLevel != "" {
				out = append(out, "result.fail_level")
			}
			if len(r.Clauses) > 0 {
				out = append(out, "result.clauses")
			}
			for _, c := range r.Clauses {
				for name, v := range map[string]bool{"clause.failures": len(c.Failures) > 0, "clause.calls": len(c.Calls) > 0, "clause.reason": c.Reason != "", "clause.blocked_by": c.BlockedBy != ""} {
					if v {
						out = append(out, name)
					}
				}
			}
		}
	}
	return out
}

func TestSchemaRejectsReportsThatBreakIt(t *testing.T) {
	var buf bytes.Buffer
	if err := mustRealReports(t)["reference"].WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	for name, breakIt := range map[string]func(doc map[string]any){
		"other schema version": func(doc map[string]any) { doc["schema"] = "mcpcheck.report/v1" },
		"unknown field":        func(doc map[string]any) { doc["extra"] = true },
		"missing totals":       func(doc map[string]any) { delete(doc, "totals") },
		"unknown verdict": func(doc map[string]any) {
			firstRow(doc, "checked")["result"].(map[string]any)["verdict"] = "maybe"
		},
		// No real report holds a pending row (the coverage gate forbids one),
		// so one is made from a manual row.
		"pending with a result": func(doc map[string]any) {
			row := firstRow(doc, "manual")
			row["status"], row["result"] = "pending", firstRow(doc, "checked")["result"]
		},
		"manual without a reason": func(doc map[string]any) { delete(firstRow(doc, "manual"), "reason") },
		"negative count":          func(doc map[string]any) { doc["totals"].(map[string]any)["passed"] = -1 },
	} {
		t.Run(name, func(t *testing.T) {
			var doc map[string]any
			if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			breakIt(doc)
			data, _ := json.Marshal(doc)
			var se *conformance.ReportSchemaError
			if err := conformance.ValidateReportJSON(data); !errors.As(err, &se) {
				t.Errorf("got %v, want a *ReportSchemaError", err)
			}
		})
	}
	var se *conformance.ReportSchemaError
	if err := conformance.ValidateReportJSON([]byte("{")); !errors.As(err, &se) || !strings.Contains(err.Error(), "not JSON") {
		t.Errorf("truncated JSON: got %v, want a *ReportSchemaError saying not JSON", err)
	}
}

func firstRow(doc map[string]any, status string) map[string]any {
	for _, r := range doc["scenarios"].([]any) {
		if row := r.(map[string]any); row["status"] == status {
			return row
		}
	}
	panic("no " + status + " row")
}

// A real JUnit consumer (go-junit, the parser behind several CI report
// tools) must read every report with the counts and statuses mcpcheck
// meant: a testsuite per scenario, a testcase per clause, and counts equal
// to the report's clause totals.
func TestJUnitReportsParseWithARealConsumer(t *testing.T) {
	for name, rep := range mustRealReports(t) {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := rep.WriteJUnit(&buf); err != nil {
				t.Fatal(err)
			}
			countsAgree(t, rep)
			suites, err := junit.Ingest(buf.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if len(suites) != len(rep.Rows) {
				t.Fatalf("go-junit found %d suites, want one per scenario (%d)", len(suites), len(rep.Rows))
			}
			var failed, errored, passed, skipped int
			for i, s := range suites {
				row := rep.Rows[i]
				if s.Name != row.Name {
					t.Errorf("suite %d is %q, want %q", i, s.Name, row.Name)
				}
				for _, tc := range s.Tests {
					if !strings.HasPrefix(tc.Name, row.ID+".") {
						t.Errorf("%s: testcase %q is not named by a clause key", row.ID, tc.Name)
					}
					if (tc.Status == junit.StatusFailed || tc.Status == junit.StatusError) && tc.Message == "" {
						t.Errorf("%s: %s without a message", tc.Name, tc.Status)
					}
					switch tc.Status {
					case junit.StatusFailed:
						failed++
					case junit.StatusError:
						errored++
					case junit.StatusPassed:
						passed++
					case junit.StatusSkipped:
						skipped++
					}
				}
				if want := junitVerdict(row); want != "" && !suiteHas(s, want) {
					t.Errorf("%s: no testcase is %s, the scenario's verdict", row.ID, want)
				}
			}
			// The counts in our attributes, the consumer's, and the report's
			// clause totals must all agree.
			var attrs struct {
				Tests    int `xml:"tests,attr"`
				Failures int `xml:"failures,attr"`
				Errors   int `xml:"errors,attr"`
			}
			if err := xml.Unmarshal(buf.Bytes(), &attrs); err != nil {
				t.Fatal(err)
			}
			c := rep.Totals.Clauses
			if attrs.Tests != c.Total || attrs.Failures != c.Failed+c.FailedRecommended || attrs.Errors != c.Errors {
				t.Errorf("<testsuites> says tests=%d failures=%d errors=%d; the report's clause totals are %+v", attrs.Tests, attrs.Failures, attrs.Errors, c)
			}
			if failed != c.Failed+c.FailedRecommended || errored != c.Errors || passed != c.Passed || skipped != c.Skipped {
				t.Errorf("go-junit reads %d failed, %d errors, %d passed, %d skipped; the report's clause totals are %+v", failed, errored, passed, skipped, c)
			}
		})
	}
}

// junitVerdict is a status some clause of the row's suite must have.
func junitVerdict(row conformance.Row) junit.Status {
	switch {
	case row.Result == nil && row.Status == conformance.Checked:
		return junit.StatusError // not run: the target could not be reached
	case row.Result == nil, strings.HasPrefix(row.Baseline, "expected"):
		return junit.StatusSkipped
	case strings.HasPrefix(row.Baseline, "stale"):
		return junit.StatusFailed
	}
	return map[conformance.Verdict]junit.Status{conformance.Pass: junit.StatusPassed, conformance.Fail: junit.StatusFailed,
		conformance.Skip: junit.StatusSkipped, conformance.NA: junit.StatusSkipped, conformance.Error: junit.StatusError}[row.Result.Verdict]
}

func suiteHas(s junit.Suite, st junit.Status) bool {
	for _, tc := range s.Tests {
		if tc.Status == st {
			return true
		}
	}
	return false
}

var (
	textScenarioTotals = regexp.MustCompile(`(?m)^(\d+) scenarios: (\d+) passed, (\d+) partial, (\d+) failed \(required\), (\d+) failed \(recommended\), (\d+) skipped, (\d+) not applicable, (\d+) errors`)
	textClauseTotals   = regexp.MustCompile(`(?m)^(\d+) clauses: (\d+) passed, (\d+) failed \(required\), (\d+) failed \(recommended\), (\d+) not judged, (\d+) errors`)
)

// countsAgree holds the text summary, the JSON totals and the JUnit
// attributes of one report to the same numbers, errors included.
func countsAgree(t *testing.T, rep *conformance.Report) {
	t.Helper()
	var text, js, xmlBuf bytes.Buffer
	rep.WriteText(&text)
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteJUnit(&xmlBuf); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Totals struct {
			Scenarios, Passed, Partial, Failed, Skipped, Errors int
			FailedRecommended                                   int `json:"failed_recommended"`
			NotApplicable                                       int `json:"not_applicable"`
			Clauses                                             conformance.ClauseTotals
		}
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var attrs struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
	}
	if err := xml.Unmarshal(xmlBuf.Bytes(), &attrs); err != nil {
		t.Fatal(err)
	}
	s, c := textScenarioTotals.FindStringSubmatch(text.String()), textClauseTotals.FindStringSubmatch(text.String())
	if s == nil || c == nil {
		t.Fatalf("the text report has no totals lines:\n%s", text.String())
	}
	tt, jc := doc.Totals, doc.Totals.Clauses
	want := map[string][2]int{
		"scenarios":               {atoi(s[1]), tt.Scenarios},
		"passed":                  {atoi(s[2]), tt.Passed},
		"partial":                 {atoi(s[3]), tt.Partial},
		"failed":                  {atoi(s[4]), tt.Failed},
		"failed (recommended)":    {atoi(s[5]), tt.FailedRecommended},
		"skipped":                 {atoi(s[6]), tt.Skipped},
		"not applicable":          {atoi(s[7]), tt.NotApplicable},
		"errors":                  {atoi(s[8]), tt.Errors},
		"clauses":                 {atoi(c[1]), jc.Total},
		"clauses passed":          {atoi(c[2]), jc.Passed},
		"clauses failed":          {atoi(c[3]) + atoi(c[4]), jc.Failed + jc.FailedRecommended},
		"clauses not judged":      {atoi(c[5]), jc.Skipped},
		"clause errors":           {atoi(c[6]), jc.Errors},
		"junit tests":             {attrs.Tests, jc.Total},
		"junit failures":          {attrs.Failures, jc.Failed + jc.FailedRecommended},
		"junit errors":            {attrs.Errors, jc.Errors},
		"scenario errors counted": {boolInt(tt.Errors > 0), boolInt(jc.Errors > 0)},
	}
	for what, v := range want {
		if v[0] != v[1] {
			t.Errorf("%s: %d in one format, %d in another (text, JSON and JUnit must agree)", what, v[0], v[1])
		}
	}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Every required failure a real report carries names its witness.
func TestEveryRequiredFailureCarriesAWitness(t *testing.T) {
	failures := 0
	for name, rep := range mustRealReports(t) {
		for _, row := range rep.Rows {
			if row.Result == nil {
				continue
			}
			for _, c := range row.Result.Clauses {
				for _, f := range c.Failures {
					if f.Level != scenarios.Required {
						continue
					}
					failures++
					if f.Witness == nil || f.Witness.Line() == "" {
						t.Errorf("%s report, %s: a required failure without a witness: %s", name, c.Key, f.Message)
					}
				}
			}
		}
	}
	if failures == 0 {
		t.Fatal("no real report carried a required failure to look at")
	}
}

// Under --strict a recommended failure keeps its label everywhere (the
// scenario and clause totals, JUnit) and only the exit code changes.
func TestStrictKeepsTheRecommendedLabel(t *testing.T) {
	rep, err := run(context.Background(), conformance.Config{Target: mutant("hide-other-count"), Only: []string{"U09"}, Strict: true})
	if err != nil || rep.TargetError != nil {
		t.Fatalf("%v %v", err, rep.TargetError)
	}
	tot := rep.Totals
	if tot.Failed != 0 || tot.FailedRecommended != 1 || tot.Clauses.Failed != 0 || tot.Clauses.FailedRecommended != 1 {
		t.Errorf("totals %+v: want one recommended failure, counted as recommended in scenarios and clauses", tot)
	}
	if rep.ExitCode() != conformance.ExitFail {
		t.Errorf("--strict exit %d, want %d", rep.ExitCode(), conformance.ExitFail)
	}
	var b bytes.Buffer
	if err := rep.WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "[recommended]") {
		t.Errorf("the JUnit failure is not labelled recommended:\n%s", b.String())
	}
}
