package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/scenarios"
)

// writeGitHub writes, for GitHub Actions, one ::error annotation per
// failed clause (a ::warning for a recommended one), anchored at the
// clause's line in the scenario catalog, and a Markdown step summary to
// $GITHUB_STEP_SUMMARY when it is set.
func writeGitHub(rep *conformance.Report, w io.Writer, getenv func(string) string) error {
	cat, err := scenarios.Load()
	if err != nil {
		return err
	}
	for _, row := range rep.Rows {
		res := row.Result
		if res == nil || res.Verdict != conformance.Fail && res.Verdict != conformance.Error {
			continue
		}
		file := ""
		if s, ok := cat.Lookup(row.ID); ok {
			file = "scenarios/" + s.File
		}
		if res.Verdict == conformance.Error || res.Clauses == nil {
			writeWorkflowCommand(w, fmt.Sprintf("::error file=%s,title=%s::%s", file, ghProperty(row.Name+" "+string(res.Verdict)), ghData(res.Message)))
			continue
		}
		for _, c := range res.FailedClauses() {
			kind := "error"
			if !rep.Strict && c.FailLevel() == scenarios.Recommended {
				kind = "warning"
			}
			line := 0
			if cl, ok := cat.Clause(c.Key); ok {
				line = cl.Line
			}
			var msg strings.Builder
			for _, f := range c.Failures {
				msg.WriteString(f.Message + "\n")
			}
			writeWorkflowCommand(w, fmt.Sprintf("::%s file=%s,line=%d,title=%s::%s", kind, file, line, ghProperty(c.Key+" "+c.Text), ghData(strings.TrimSpace(msg.String()))))
		}
	}
	path := getenv("GITHUB_STEP_SUMMARY")
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("GITHUB_STEP_SUMMARY: %w", err)
	}
	rep.WriteMarkdown(f)
	return f.Close()
}

// ghData escapes an annotation's message, as the runner's workflow
// commands require.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProperty escapes an annotation property (file, title).
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
