package variation

import "github.com/pdpp-connect/mcpcheck/adapter"

// The conforming variants: each a single freedom the seeds leave, made
// through the same seams as the mutants. Every check must pass every one.
// Allowed quotes the seed text that leaves the freedom open (seed 000:
// footprint, 001: entrypoint surface, 002: read evidence, 003: entrypoint
// design, 004: evidence ladder).
var variants = []Variation{
	// Text: labels, layouts and cut marks for the same values.
	{ID: "ascii-ellipsis", Freedom: `marks every cut with an ASCII "..." instead of "…"`,
		Allowed: "seed 004: a bounded preview when that is safe; no seed fixes how a cut is marked",
		Doc:     `Tuning.Ellipsis is "..."`,
		Apply:   tune(func(t *adapter.Tuning) { t.Ellipsis = "..." })},
	{ID: "narrow-windows", Freedom: "shows shorter snippets, previews and field windows",
		Allowed: "seed 004: bounded surrounding text around the marked match; the seeds set no window size",
		Doc:     "SnippetChars 60, ValueChars 40, FieldWindow 2,048, FetchTextLimit 8,192",
		Apply: tune(func(t *adapter.Tuning) {
			t.SnippetChars, t.ValueChars, t.FieldWindow, t.FetchTextLimit = 60, 40, 2048, 8192
		})},
}
