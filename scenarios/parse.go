package scenarios

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

var (
	seedRe       = regexp.MustCompile(`^(?:Seed (\d{3})|(Contract)): (.+)$`)
	requireRe    = regexp.MustCompile(`^Requirement: (.+)$`)
	scenarioRe   = regexp.MustCompile(`^Scenario: ([SU]\d{2,3}) ([a-z0-9]+(?:-[a-z0-9]+)*) — (.+)$`)
	seedIDRe     = regexp.MustCompile(`^S\d{3}$`)
	contractIDRe = regexp.MustCompile(`^U\d{2}$`)
	clauseRe     = regexp.MustCompile(`^\*\*(WHEN|THEN|AND)\*\* (.+)$`)
	acceptanceRe = regexp.MustCompile(`^\[(S\d{3}(?:, S\d{3})*)\] (.+)$`)
)

// sections are the level-2 headings a spec may have.
var sections = map[string]bool{"Purpose": true, "Requirements": true, "Acceptance checks": true}

// A specParser walks one spec's top-level Markdown blocks in order.
type specParser struct {
	src              []byte
	file             string
	seed, group, req string
	section          string
	cur              *Scenario
	cat              *Catalog
	errs             []string
}

func parseSpec(file string, data []byte, cat *Catalog) []string {
	p := &specParser{file: file, src: data, cat: cat}
	doc := goldmark.DefaultParser().Parse(text.NewReader(data))
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		switch n := n.(type) {
		case *ast.Heading:
			p.heading(n)
		case *ast.List:
			for item := n.FirstChild(); item != nil; item = item.NextSibling() {
				p.listItem(item)
			}
		case *ast.Blockquote:
			p.blockquote(n)
		}
	}
	p.flush()
	if p.seed == "" {
		p.errs = append(p.errs, fmt.Sprintf("%s: missing '# Seed NNN: title' or '# Contract: title'", file))
	}
	return p.errs
}

func (p *specParser) bad(n ast.Node, format string, args ...any) {
	p.errs = append(p.errs, fmt.Sprintf("%s:%d: ", p.file, p.line(n))+fmt.Sprintf(format, args...))
}

// line is the 1-based line a block starts on.
func (p *specParser) line(n ast.Node) int {
	for c := n; c != nil; c = c.FirstChild() {
		if c.Type() != ast.TypeInline && c.Lines().Len() > 0 {
			return bytes.Count(p.src[:c.Lines().At(0).Start], []byte("\n")) + 1
		}
	}
	return 0
}

// raw is a block's source text, its lines joined by spaces: the Markdown
// as written (backticks and all), as reports quote it.
func (p *specParser) raw(n ast.Node) string {
	var parts []string
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		parts = append(parts, strings.TrimSpace(string(seg.Value(p.src))))
	}
	return strings.TrimSpace(strings.Join(parts, " "))
}

func (p *specParser) flush() {
	if p.cur != nil {
		p.cat.Scenarios = append(p.cat.Scenarios, *p.cur)
		p.cur = nil
	}
}

func (p *specParser) heading(h *ast.Heading) {
	title := p.raw(h)
	if h.Level >= 2 {
		p.flush()
	}
	switch h.Level {
	case 1:
		m := seedRe.FindStringSubmatch(title)
		if m == nil {
			p.bad(h, "title must read '# Seed NNN: title' or '# Contract: title'")
			return
		}
		p.seed, p.group = m[1], title
		if m[2] != "" {
			p.seed = "contract"
		}
	case 2:
		if !sections[title] {
			p.bad(h, "unknown section %q (a spec has '## Purpose', '## Requirements' and, in seed 003, '## Acceptance checks')", title)
		}
		p.section = title
	case 3:
		m := requireRe.FindStringSubmatch(title)
		if m == nil || p.section != "Requirements" {
			p.bad(h, "level-3 headings must read '### Requirement: name', under '## Requirements'")
			return
		}
		p.req = m[1]
	case 4:
		m := scenarioRe.FindStringSubmatch(title)
		if m == nil {
			p.bad(h, "scenario heading must read '#### Scenario: S000 slug — title'")
			return
		}
		id := m[1]
		if p.seed == "" || p.req == "" {
			p.bad(h, "scenario %s appears before its '# Seed' title or '### Requirement'", id)
		}
		if p.seed == "contract" && !contractIDRe.MatchString(id) || p.seed != "contract" && !seedIDRe.MatchString(id) {
			p.bad(h, "scenario id %s: seed specs use S001…, the contract U01…", id)
		}
		level := Required
		if p.seed == "contract" {
			level = Recommended
		}
		p.cur = &Scenario{ID: id, Slug: m[2], Title: m[3], Seed: p.seed, Group: p.group, File: p.file, Line: p.line(h), Requirement: p.req, Level: level}
	default:
		p.bad(h, "a spec uses heading levels 1 to 4 only")
	}
}

func (p *specParser) listItem(item ast.Node) {
	body := item.FirstChild()
	if body == nil {
		return
	}
	line := p.raw(body)
	switch {
	case p.cur != nil:
		m := clauseRe.FindStringSubmatch(line)
		if m == nil {
			p.bad(item, "clause must be '- **WHEN|THEN|AND** text' inside a scenario")
			return
		}
		p.clause(item, m[1], m[2])
	case p.section == "Acceptance checks":
		m := acceptanceRe.FindStringSubmatch(line)
		if m == nil {
			p.bad(item, "acceptance check must read '- [S000, S001] text'")
			return
		}
		p.cat.Acceptance = append(p.cat.Acceptance, Acceptance{Text: m[2], IDs: strings.Split(m[1], ", "), File: p.file, Line: p.line(item)})
	case strings.HasPrefix(line, "**"):
		p.bad(item, "clause must be '- **WHEN|THEN|AND** text' inside a scenario")
	}
}

func (p *specParser) clause(n ast.Node, kind, text string) {
	s := p.cur
	switch {
	case kind == "WHEN":
		if len(s.Clauses) > 0 {
			p.bad(n, "WHEN after THEN in %s", s.ID)
		}
		s.When = append(s.When, text)
	case kind == "THEN" || len(s.Clauses) > 0:
		key := fmt.Sprintf("%s.%d", s.ID, len(s.Clauses)+1)
		s.Clauses = append(s.Clauses, Clause{Key: key, Kind: kind, Text: text, Level: s.Level, Line: p.line(n)})
		s.Then = append(s.Then, text)
	default: // an AND before the first THEN extends the condition
		s.When = append(s.When, text)
	}
}

func (p *specParser) blockquote(q *ast.Blockquote) {
	for c := q.FirstChild(); c != nil; c = c.NextSibling() {
		line := p.raw(c)
		note, ok := strings.CutPrefix(line, "Note:")
		switch {
		case !ok:
		case p.cur == nil:
			p.bad(q, "note outside a scenario")
		default:
			p.cur.Notes = append(p.cur.Notes, strings.TrimSpace(note))
		}
	}
}
