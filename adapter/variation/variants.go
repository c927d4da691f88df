package variation

import (
	"strings"

	"github.com/pdpp-connect/mcpcheck/adapter"
)

// The conforming variants: each a single freedom the seeds leave, made
// through the same seams as the mutants. Every check must pass every one.
// Allowed quotes the seed text that leaves the freedom open (seed 000:
// footprint, 001: entrypoint surface, 002: read evidence, 003: entrypoint
// design, 004: evidence ladder).
var variants = []Variation{
	// Text: labels, layouts and cut marks for the same values.
	{ID: "sentence-handles", Exercises: []string{"S023"}, Freedom: `writes the paging, change and count handles and the first fetch id as sentences (Next page: pass cursor "…") instead of key=value pairs`,
		Allowed: `seed 001: "Normal read tools SHALL include pagination, change-bookmark, and count handles in content[] text when those handles are present"; seed 003: "content[] remains bounded prose, but it must carry the operational handles" (their presence, not their labels)`,
		Doc:     "MCP middleware rewrites the first line of query_records' and search's text; the values are the envelope's; Tuning.TextBudget leaves room for the longer labels",
		Apply:   sentenceHandles()},
	{ID: "source-mix-sentence", Exercises: []string{"S025"}, Freedom: `writes search's source mix as a sentence ("Source mix: 3 hits from cin_a (gmail), 1 hit from cin_b (slack).")`,
		Allowed: `seed 001: "the model-visible text SHALL include a compact source mix when hits come from more than one connection" (no format is given)`,
		Doc:     "MCP middleware rewrites source_mix=… in search's first line; counts and connections unchanged",
		Apply:   sourceMixSentence()},
	{ID: "capped-source-mix", Exercises: []string{"S025"}, Freedom: "names at most two connections in search's source mix, then says how many more contributed (more:N)",
		Allowed: `seed 001: "the model-visible text SHALL include a compact source mix when hits come from more than one connection" (compact, not exhaustive; each hit still names its own connection)`,
		Doc:     "Tuning.SourceMixCap is 2",
		Apply:   tune(func(t *adapter.Tuning) { t.SourceMixCap = 2 })},
	{ID: "ascii-ellipsis", Exercises: []string{"S033", "S050"}, Freedom: `marks every cut with an ASCII "..." instead of "…"`,
		Allowed: "seed 004: a bounded preview when that is safe; no seed fixes how a cut is marked",
		Doc:     `Tuning.Ellipsis is "..."`,
		Apply:   tune(func(t *adapter.Tuning) { t.Ellipsis = "..." })},
	{ID: "bracketed-ellipsis", Exercises: []string{"S033", "S050"}, Freedom: `marks every cut with "[…]" instead of "…"`,
		Allowed: `seed 004: "it SHALL NOT silently truncate as if complete" (a cut is marked; no seed fixes the mark)`,
		Doc:     `Tuning.Ellipsis is "[…]"`,
		Apply:   tune(func(t *adapter.Tuning) { t.Ellipsis = "[…]" })},
	{ID: "narrow-windows", Exercises: []string{"S026", "S044", "S047"}, Freedom: "shows shorter snippets, previews and field windows",
		Allowed: "seed 004: bounded surrounding text around the marked match; the seeds set no window size",
		Doc:     "SnippetChars 60, ValueChars 40, FieldWindow 2,048, FetchTextLimit 8,192",
		Apply: tune(func(t *adapter.Tuning) {
			t.SnippetChars, t.ValueChars, t.FieldWindow, t.FetchTextLimit = 60, 40, 2048, 8192
		})},
	{ID: "wide-windows", Exercises: []string{"S026", "S044"}, Freedom: "shows longer search snippets and evidence previews, and longer cut values in record previews",
		Allowed: `seed 004: "the evidence preview SHALL include bounded surrounding text around the marked match"; seed 000: "keep content[] summaries bounded" (bounded, at no set size)`,
		Doc:     "SnippetChars 200, ValueChars 160; the text budget is unchanged",
		Apply:   tune(func(t *adapter.Tuning) { t.SnippetChars, t.ValueChars = 200, 160 })},
	{ID: "rs-projects-fields", Freedom: "forwards fields to the RS and renders the projected records and documents it answers, without narrowing them again",
		Allowed: `seed 001: "Projection arguments such as fields SHALL narrow record payloads returned by canonical structured read tools"; "the adapter SHALL project the source record before rendering the document" (an RS that honours fields projects it; who narrows is not fixed)`,
		Doc:     "Tuning.RSProjects; the query_records description declares the RS envelope keys a projected record keeps. Against an RS that ignores fields it shows them all, which mcpcheck's own defence-in-depth rule advises against",
		Advised: []string{"S030.2", "S031.1", "S031.2"},
		Apply: all(tune(func(t *adapter.Tuning) { t.RSProjects = true }), describe("query_records", func(d string) string {
			return strings.Replace(d, " Read-only;", " Projected records keep the RS envelope's id, stream, connection_id, connector_key, connector_instance_id, display_name and emitted_at beside data. Read-only;", 1)
		}))},
	{ID: "per-record-text-budget", Freedom: "previews 20 records of a page, within a text budget of 6,000 bytes instead of 1,792",
		Allowed: `seed 000: "The adapter SHALL keep content[] summaries bounded" (bounded, at no set size: S006.2's number is mcpcheck's own, scaled per record returned)`,
		Doc:     "Tuning.TextBudget 6,000, RecordPreviews 20",
		Apply:   tune(func(t *adapter.Tuning) { t.TextBudget, t.RecordPreviews = 6000, 20 })},
	{ID: "fetch-cut-labelled-in-metadata", Exercises: []string{"S033", "S050"}, Freedom: "signals a cut fetch text, its whole size and its read_record_field continuation only in the document's metadata, whose JSON content[] mirrors, the text ending where it was cut",
		Allowed: `seed 001: fetch "SHALL mirror that exact object as JSON-encoded text in content[]" (so metadata is model-visible); seed 004: "SHALL provide an explicit read or export continuation AND SHALL NOT silently truncate as if complete" (no place for the signal)`,
		Doc:     "the fetch answer's text no longer ends with the cut note",
		Apply:   onFetch(cutLabelledInMetadataOnly)},
	{ID: "fetch-text-32k", Exercises: []string{"S033"}, Freedom: "cuts fetch's document text at 32,768 characters instead of 16,384, with the same read_record_field continuation",
		Allowed: `seed 004: "bounded previews plus explicit read/export escalation … SHALL NOT silently truncate as if complete"; seed 001's fetch document sets no text size`,
		Doc:     "Tuning.FetchTextLimit is 32,768",
		Apply:   tune(func(t *adapter.Tuning) { t.FetchTextLimit = 32768 })},
	{ID: "humane-fallback-titles", Exercises: []string{"S027"}, Freedom: `names an untitled hit or document "Work Mail · messages · 30 Jun 2026, 09:00 UTC" instead of "Work Mail / messages / 2026-06-30T09:00:00Z"`,
		Allowed: `seed 001: "search result title SHALL be a human-readable identity distinct from the matched snippet when no source title exists AND title fallback SHALL prefer authored/event timestamps such as sent_at over ingestion timestamps" (the authored time, in no fixed format)`,
		Doc:     "Tuning.FallbackTitle writes the authored time for a reader",
		Apply:   tune(func(t *adapter.Tuning) { t.FallbackTitle = humaneTitle })},
	{ID: "plain-snippets", Exercises: []string{"S026"}, Freedom: "shows search snippets as unhighlighted prose (evidence previews keep their marked match)",
		Allowed: `seed 001: "search snippets SHALL use balanced highlight tags or unhighlighted prose rather than punctuation sentinels"`,
		Doc:     "MCP middleware drops <mark> tags from structuredContent.results[].snippet and from the text's hit lines",
		Apply:   plainSnippets()},

	// JSON: the same objects, formatted otherwise.
	{ID: "reordered-fetch-mirror", Exercises: []string{"S029.2"}, Freedom: "mirrors fetch's document in content[] indented, with every object's keys in reverse order",
		Allowed: `seed 001: fetch "SHALL mirror that exact object as JSON-encoded text in content[]" (the same object; JSON key order and whitespace carry no meaning)`,
		Doc:     "MCP middleware re-encodes fetch's text; structuredContent is unchanged",
		Apply:   reorderedFetchMirror()},
	{ID: "pretty-error-text", Exercises: []string{"U03", "S021"}, Freedom: "writes every error object in text as indented multi-line JSON, as the anchor's JSON.stringify(err, null, 2) does",
		Allowed: `seed 001: "a typed ambiguous_connection error with retry_with" and seed 000: "a typed invalid_expand error with a message that names the stream" (typed objects; no seed fixes their text layout)`,
		Doc:     "MCP middleware indents the JSON text of isError results; structuredContent.error is unchanged",
		Apply:   prettyErrors()},

	// Who checks arguments.
	{ID: "protocol-argument-errors", Exercises: []string{"U01", "U03"}, Freedom: "refuses arguments that break a tool's input schema with the SDK's JSON-RPC -32602 error naming the argument",
		Allowed: `seed 001: "the adapter SHALL forward or validate the request against the same resource-server read contracts" (no seed fixes the channel of a schema refusal); scenario-catalog correction 2026-11-23: "Typed rejections may come from the MCP SDK's input validation (JSON-RPC -32602 …)"`,
		Doc:     "MCP middleware validates each call against the advertised input schema before the adapter, as an SDK does",
		Apply:   sdkValidation(protocolRejection)},
	{ID: "sdk-text-argument-errors", Exercises: []string{"U01", "U03"}, Freedom: `refuses arguments that break a tool's input schema with the TypeScript SDK's isError text ("MCP error -32602: Input validation error: … at filter"), no structured error`,
		Allowed: `seed 001: "the adapter SHALL forward or validate the request against the same resource-server read contracts"; scenario-catalog correction 2026-11-23: "or isError text naming the argument"`,
		Doc:     "MCP middleware validates each call against the advertised input schema and answers an isError text result",
		Apply:   sdkValidation(textRejection)},
	{ID: "rs-checks-value-domains", Exercises: []string{"U03", "U09"}, Freedom: "leaves value domains (order, count, granularity, aggregate's limit, filter range operator names) to the RS and relays its typed 400",
		Allowed: `seed 001: "the adapter SHALL forward or validate the request against the same resource-server read contracts"; seed 000 makes the adapter gate expand only`,
		Doc:     "MCP middleware takes out-of-domain values out of the call and the RS transport forwards them on the data read",
		Apply:   rsChecksValueDomains()},

	// Source identity and ids.
	{ID: "fan-in-unscoped-lists", Exercises: []string{"S032"}, Inapplicable: map[string]string{"S032": "it forwards the RS fan-in, so no read is refused as ambiguous"}, Freedom: "forwards query_records without connection_id over a stream several connections serve; the RS fans in and each previewed record names its connection",
		Allowed: `seed 001: ambiguous_connection is for "a source-required MCP read … against a package containing multiple configured sources"; seed 003: source identity "answers \"which connection did this record come from?\" from the result itself"; docs/RS-CONTRACT.md §6.4 fans in`,
		Doc:     "Tuning.UnscopedLists is UnscopedListsFanIn; fetch and read_record_field still ask",
		Apply:   tune(func(t *adapter.Tuning) { t.UnscopedLists = adapter.UnscopedListsFanIn })},
	{ID: "opaque-record-ids", Exercises: []string{"U05", "S046"}, Freedom: "writes record ids as opaque base64url tokens of (connection_id, stream, record_id), and still reads path ids",
		Allowed: `seed 001: "WHEN a client calls fetch with an id returned by search" and "each hit SHALL include connection_id, connector_key, stream name, record id" (ids must be fetchable; the tuple stays in fields); seed 003 names the tuple, not a format`,
		Doc:     "Tuning.IDs is a token codec; fetch's description says so",
		Apply:   opaqueRecordIDs()},
	{ID: "flat-index-rows", Freedom: "lays the global schema index out as one flat streams[] list, each row with its own connector_key and granted_connections (about 150 B a stream on a 1,000-stream grant)",
		Allowed: `seed 001: "The global schema result SHALL stay bounded as a complete MCP tool result" and "Broad discovery SHALL behave as an index, not as a repeated field-capability dump" (bounded, at no set size; no row layout is fixed); S017.4's bound is mcpcheck's own and scales per stream (issue 28 item 6)`,
		Doc:     "MCP middleware flattens structuredContent.data.connectors[].streams[] of schema {} into data.streams[]; the text is unchanged",
		Apply:   flatIndexRows()},
	{ID: "capabilities-stated-none", Freedom: `says "none" for each kind of capability a stream's grant offers nothing of (filter=none, aggregations=none, search=none, sort=none), as on the reference RS, whose client grants declare no capability (../shared/realrs M2); judged on the fixture's real-RS profile by S018–S020`,
		Allowed: `seed 001: "clients that cannot inspect structuredContent SHALL still be able to choose valid filter, sort, aggregate, projection, and connection arguments" (a choice among what the grant offers: where it offers none of a kind, "none" is the truthful text; issue 28 item 3)`,
		Doc:     "Tuning.Grammar is noneGrammar: the default grammar plus a none segment per empty kind, explained in the legend",
		Apply:   capabilitiesStatedNone()},
	{ID: "search-modes-as-field-flags", Freedom: "states search modes only as field flags (lex, sem) that the legend explains, with no row-level search= segment",
		Allowed: `seed 001: "the model-visible text SHALL include … search modes … needed for the next read" and "WHEN a compact schema response uses abbreviated capability flags or a mini-grammar THEN the response SHALL include a model-visible legend explaining those flags" (flags a legend explains state the support; issue 28 item 4)`,
		Doc:     "Tuning.Grammar drops the default grammar's search= segment",
		Apply:   grammar(rowGrammar{drop: func(seg string) bool { return strings.HasPrefix(seg, "search=") }})},
	{ID: "path-record-handles", Freedom: "writes record handles as pdpp://record/<connection_id>/<stream>/<record_id>, names one beside each search hit, and takes only that encoding",
		Allowed: `seed 004: "WHEN model-visible text or structured content includes a pdpp://record/... URI THEN the adapter SHALL either make that URI readable through MCP resource reading OR accept that URI directly in the documented model-callable read tools" (its own URIs; the encoding after the prefix is not fixed)`,
		Doc:     "MCP middleware: search results gain uri; fetch and read_record_field read the path handle as a fetch id and refuse other pdpp:// encodings",
		Apply:   pathRecordHandles()},
	{ID: "paren-schema-grammar", Exercises: []string{"S018", "S020"}, Freedom: "writes scoped schema fields as name(type; filter=eq,gte; agg=sum,group_by; …) with a legend for that grammar",
		Allowed: `seed 001: "WHEN a compact schema response uses abbreviated capability flags or a mini-grammar THEN the response SHALL include a model-visible legend explaining those flags"; seed 003: "either replaced with clearer compact fields or accompanied by a visible legend"`,
		Doc:     "Tuning.Grammar is parenGrammar",
		Apply:   parenSchemaGrammar()},

	// Resources beside the tools.
	{ID: "record-resources", Exercises: []string{"S035", "S046"}, Freedom: "serves pdpp://record/ URIs through resources/read and advertises their template; search hits name their URI beside their id",
		Allowed: `seed 002: "The MCP adapter MAY return MCP resource_link blocks and resource templates for host-controlled reads. The adapter SHALL NOT make resources/read the only path"; seed 004: "either make that URI readable through MCP resource reading OR accept that URI"`,
		Doc:     "MCP middleware adds the resources capability and answers resources/templates/list and resources/read through fetch",
		Apply:   recordResources()},
	{ID: "resource-links", Exercises: []string{"S034", "S035"}, Freedom: "adds resource_link blocks after the text of search, query_records and read_record_field for the records they refer to",
		Allowed: `seed 002: "MAY return MCP resource_link blocks"; seed 004: a small text field read "SHALL NOT return only a resource link" (links beside inline text are allowed); fetch takes every linked URI`,
		Doc:     "MCP middleware appends pdpp://record/ resource_link content",
		Apply:   resourceLinks()},

	// Setup copy.
	{ID: "profile-free-prose", Exercises: []string{"S010", "S011"}, Freedom: `describes the profile-free design in words in --help and /llms.txt ("no profiles or toolsets to choose")`,
		Allowed: `seed 001: setup "SHALL NOT advertise profile-selection flags or environment variables" and SHALL NOT expose "profile names, or profile selectors" (saying there are none advertises none); seed 003: "The SLVP ideal is one profile-free normal MCP read entrypoint"`,
		Doc:     "Command.Help and hosted middleware on /llms.txt add one sentence; the setup page, which seed 003 keeps free of profile vocabulary, is unchanged",
		Apply:   profileFreeProse},
}
