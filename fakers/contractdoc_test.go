package fakers

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	contractHeading = regexp.MustCompile(`(?m)^#{2,3} (\d+(?:\.\d+)?)\.? `)
	contractTail    = regexp.MustCompile(`^(?:\s|§\d+(?:\.\d+)?|#\d+|[,/–-]|and\b)*`)
	contractRef     = regexp.MustCompile(`§(\d+(?:\.\d+)?)|#(\d+)`)
	bareContractRef = regexp.MustCompile(`contract §|\(§\d`)
)

// contractSections are the section numbers docs/RS-CONTRACT.md defines,
// and the numbered rows of its §15 (spec versus implementation).
func contractSections(t *testing.T, doc string) (map[string]bool, map[string]bool) {
	sections, diffs := map[string]bool{}, map[string]bool{}
	for _, m := range contractHeading.FindAllStringSubmatch(doc, -1) {
		sections[m[1]] = true
	}
	_, s15, ok := strings.Cut(doc, "\n## 15. ")
	if !ok {
		t.Fatal("docs/RS-CONTRACT.md has no §15")
	}
	s15, _, _ = strings.Cut(s15, "\n## ")
	for _, m := range regexp.MustCompile(`(?m)^\| (\d+) \|`).FindAllStringSubmatch(s15, -1) {
		diffs[m[1]] = true
	}
	return sections, diffs
}

// checkCitations reports each "§N" or "§15 #k" after a mention of the
// contract in text that the contract does not define.
func checkCitations(t *testing.T, where, text, mention string, sections, diffs map[string]bool) {
	for _, line := range strings.Split(text, "\n") {
		for rest := line; ; {
			i := strings.Index(rest, mention)
			if i < 0 {
				break
			}
			rest = rest[i+len(mention):]
			section := ""
			for _, m := range contractRef.FindAllStringSubmatch(contractTail.FindString(rest), -1) {
				switch {
				case m[1] != "":
					section = m[1]
					if !sections[section] {
						t.Errorf("%s: §%s is not a section of docs/RS-CONTRACT.md: %s", where, section, strings.TrimSpace(line))
					}
				case section == "":
					// "#k" with no section before it is not a citation
				case section != "15" || !diffs[m[2]]:
					t.Errorf("%s: §%s #%s is not a numbered difference of docs/RS-CONTRACT.md §15: %s", where, section, m[2], strings.TrimSpace(line))
				}
			}
		}
	}
}

// Every "docs/RS-CONTRACT.md §N" the code cites names a section that
// exists, and no comment cites "contract §N" without naming the document.
func TestContractCitationsResolve(t *testing.T) {
	root := ".."
	b, err := os.ReadFile(filepath.Join(root, "docs", "RS-CONTRACT.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	sections, diffs := contractSections(t, doc)
	if len(sections) < 16 || len(diffs) < 19 {
		t.Fatalf("docs/RS-CONTRACT.md: %d sections, %d differences; the heading or table format changed", len(sections), len(diffs))
	}
	// The document's own cross-references ("§2.3") resolve too.
	checkCitations(t, "docs/RS-CONTRACT.md", strings.NewReplacer("(", " ", "`", " ").Replace(doc), " ", sections, diffs)
	cited := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "contractdoc_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		text := string(src)
		cited += strings.Count(text, "RS-CONTRACT.md §")
		checkCitations(t, path, text, "RS-CONTRACT.md", sections, diffs)
		for _, line := range strings.Split(text, "\n") {
			if bareContractRef.MatchString(strings.ReplaceAll(line, "RS-CONTRACT.md §", "")) {
				t.Errorf("%s: cite the contract as docs/RS-CONTRACT.md §N: %s", path, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if cited == 0 {
		t.Error("no Go file cites docs/RS-CONTRACT.md §N: the walk found nothing")
	}
}
