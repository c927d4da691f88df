package probe

import "regexp"

// Reading capability statements (issue 27, cause 5): a target may state
// projection, sort, count and search support as a flag ("projection=fields"),
// a sentence ("supports projection with fields=[...]"), a short label
// ("proj: fields") or the call that uses it ("pass fields as a list").

// ScopeSupport is what seed 001 wants the text of schema(stream,
// connection_id) to state besides fields, for the next read, where no
// value of the row can show it.
var ScopeSupport = []struct {
	What  string         // the capability, as a report names it
	Re    *regexp.Regexp // a statement of it
	Stems []string       // words any statement of it holds: none of them is the witness
}{
	{"projection", regexp.MustCompile(`(?i)\bproj(ection|ects?|ected)?\b|\bproject(ed|ion)?\s+fields\b|\bselect(ed)?\s+fields\b|\bpass(ing)?\s+fields\b|\bfields\s*[=:]\s*\[`), []string{"project", "fields", "select"}},
	{"sort", regexp.MustCompile(`(?i)\bsort|\border(ed)?\s+by\b`), []string{"sort", "order"}},
	{"count", regexp.MustCompile(`(?i)\bcounts?\b[^\n]{0,40}\b(exact|estimated)\b|\b(exact|estimated)\s+counts?\b|\b(with_)?counts?\s*[:=(]`), []string{"count"}},
	{"search modes", regexp.MustCompile(`(?i)\b(search|lexical|semantic|hybrid|full[- ]?text)\b`), []string{"search", "lexical", "semantic", "hybrid", "text"}},
}
