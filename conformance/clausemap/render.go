package clausemap

import (
	"cmp"
	"fmt"
	"io"
	"strings"
)

// IndexCommand regenerates scenarios/INDEX.md, from the module root.
const IndexCommand = "go run ./cmd/mcpcheck scenarios --index > scenarios/INDEX.md"

// WriteText prints the map of each scenario for a terminal.
func WriteText(w io.Writer, scs []Scenario) {
	for i, s := range scs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s %s — %s (%s, seed %s, %s)\n", s.ID, s.Slug, s.Title, s.Level, s.Seed, s.Status)
		field := func(name string, vals ...string) {
			for j, v := range vals {
				label := ""
				if j == 0 {
					label = name
				}
				fmt.Fprintf(w, "  %-9s %s\n", label, v)
			}
		}
		field("spec", s.Spec)
		field("check", cmp.Or(s.Check, "none"))
		if s.Check != "" {
			adapter := s.Adapter
			if len(adapter) == 0 {
				adapter = []string{"not mapped: add it to conformance/clausemap/adapter_code.go"}
			}
			field("adapter", adapter...)
			field("data", dataLines(s)...)
		}
		if len(s.Mutants) > 0 {
			field("mutants", strings.Join(s.Mutants, ", ")+" (the whole scenario)")
		}
		if len(s.Variants) > 0 {
			field("variants", strings.Join(s.Variants, ", ")+" (the whole scenario)")
		}
		for _, c := range s.Clauses {
			fmt.Fprintf(w, "  %s %s %s\n", c.Key, c.Kind, c.Text)
			if s.Check != "" {
				fmt.Fprintf(w, "      judged at %s\n", cmp.Or(c.At, "? (not reached on the reference adapter)"))
			}
			fmt.Fprintf(w, "      mutants   %s\n", cmp.Or(strings.Join(c.Mutants, ", "), "none"))
			if len(c.Variants) > 0 {
				fmt.Fprintf(w, "      variants  %s\n", strings.Join(c.Variants, ", "))
			}
		}
	}
}

func dataLines(s Scenario) []string {
	if len(s.Data) == 0 {
		return []string{"none beyond initialize and tools/list"}
	}
	var out []string
	for _, d := range s.Data {
		out = append(out, d.What+" (asked at "+d.At+"; built by "+d.Builder+")")
	}
	if s.Verdict != "pass" {
		out = append(out, "(seen on a run that ended "+s.Verdict+": may be incomplete)")
	}
	return out
}

// WriteMarkdown writes scenarios/INDEX.md: the map of every scenario, with
// links relative to scenarios/.
func WriteMarkdown(w io.Writer, scs []Scenario) {
	fmt.Fprintf(w, `# Scenario index

Generated: do not edit. Regenerate with `+"`%s`"+` (TestIndexIsCurrent
fails until you do).

For each scenario: its spec, its check, the reference adapter code that implements it,
the fixture data the check reads (seen on a run against the reference adapter: what the
check discovers in the target's own data, which on a fixture RS is the %s fixture, and the
fixtures it forks the target onto), and, per clause (key `+"`S029.2`"+`), the seed text, where the
check judges it, the mutants that must fail it and the conforming variants it must accept.
Mutants and variants that name a scenario id rather than a clause key are listed with the scenario.
`+"`mcpcheck scenarios ID`"+` prints the same for one scenario.

`, IndexCommand, "`default`")
	for _, s := range scs {
		fmt.Fprintf(w, "- [%s %s](#%s)\n", s.ID, s.Slug, anchor(s))
	}
	for _, s := range scs {
		fmt.Fprintf(w, "\n## %s %s — %s\n\n", s.ID, s.Slug, mdText(s.Title))
		fmt.Fprintf(w, "%s · seed %s · %s · spec %s\n\n", s.Level, s.Seed, mdText(s.Status), link(s.Spec))
		if s.Check != "" {
			fmt.Fprintf(w, "- **Check:** %s\n", link(s.Check))
			fmt.Fprintf(w, "- **Adapter:** %s\n", cmp.Or(joinMap(s.Adapter, symbolLink), "not mapped"))
			var data []string
			for _, d := range s.Data {
				data = append(data, fmt.Sprintf("%s, asked at %s, built by %s", d.What, symbolLink(d.At), symbolLink(d.Builder)))
			}
			if len(data) == 0 {
				data = []string{"none beyond initialize and tools/list"}
			}
			if s.Verdict != "pass" {
				data = append(data, "seen on a run that ended "+s.Verdict+": may be incomplete")
			}
			fmt.Fprintf(w, "- **Data:**\n")
			for _, d := range data {
				fmt.Fprintf(w, "  - %s\n", d)
			}
		}
		if len(s.Mutants) > 0 {
			fmt.Fprintf(w, "- **Mutants (the whole scenario):** %s\n", codeList(s.Mutants))
		}
		if len(s.Variants) > 0 {
			fmt.Fprintf(w, "- **Variants (the whole scenario):** %s\n", codeList(s.Variants))
		}
		fmt.Fprintf(w, "\n| clause | text | judged at | mutants | variants |\n|---|---|---|---|---|\n")
		for _, c := range s.Clauses {
			judged := "—"
			if c.At != "" {
				judged = symbolLink(c.At)
			}
			fmt.Fprintf(w, "| **%s** | %s %s | %s | %s | %s |\n", c.Key, c.Kind, mdText(c.Text), judged, codeList(c.Mutants), codeList(c.Variants))
		}
	}
}

// anchor is the GitHub anchor of a scenario's heading.
func anchor(s Scenario) string {
	h := strings.ToLower(s.ID + " " + s.Slug + " — " + s.Title)
	var b strings.Builder
	for _, r := range h {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// link is a markdown link to "path:line" (or a path) from scenarios/.
func link(pos string) string {
	file, line, ok := strings.Cut(pos, ":")
	target := "../" + file
	if ok {
		target += "#L" + line
	}
	return fmt.Sprintf("[%s](%s)", pos, target)
}

// symbolLink renders "file:line name" or "file name" as a link and code.
func symbolLink(s string) string {
	pos, name, _ := strings.Cut(s, " ")
	if pos == "" {
		return "—"
	}
	if name == "" {
		return link(pos)
	}
	return link(pos) + " `" + name + "`"
}

func joinMap(ss []string, f func(string) string) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = f(s)
	}
	return strings.Join(out, ", ")
}

func codeList(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return "`" + strings.Join(ids, "`, `") + "`"
}

// mdText keeps text inside one table cell.
func mdText(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
