package variation

import (
	"regexp"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/adapter"
)

// evidenceMutants break the evidence ladder: S035–S052.
// None of these claims S034.2: each leaves every hit's identity in the
// text (its id in the hit list), so structuredContent is not the only path
// to it; what each breaks is the evidence ladder's own clauses.
var evidenceMutants = []Variation{
	{ID: "handles-through-resources-only", Kills: []string{"S035.1"}, Doc: "search hits show their pdpp://record/ URI; pdpp:// handles are served by resources/read and refused as fetch and read_record_field ids",
		Apply: all(handlesThroughResourcesOnly(), showHitURIs())},
	{ID: "resource-only-evidence", Kills: []string{"S035.1", "S043.2", "S047.1", "S047.2"}, Doc: "search evidence is reachable only through a pdpp://field-window/ resource",
		Apply: resourceOnlyEvidence()},
	{ID: "small-text-as-file-link", Kills: []string{"S036.1", "S036.2", "S049.1", "S049.2", "S052.1"},
		Doc:   "a small field comes back as a link to a file export only (the search-to-read journeys of S033 and S034 read one)",
		Apply: onWindow(smallTextAsFileLink)},
	{ID: "media-types-in-page-footer", Kills: []string{"S050.1"}, Doc: "record previews mark binary fields without their media type; a footer lists the page's media types, describing no blob in particular",
		Apply: onRecordsText(mediaTypesInFooter)},
	{ID: "binary-by-name", Kills: []string{"S037.2"}, Collateral: []string{"S050"}, Doc: "record previews show every field named like binary content as binary metadata, whatever it holds (S050 too: that marker drops a real binary field's media type)",
		Apply: binaryByName()},
	{ID: "promote-summary-text", Kills: []string{"S037.2"}, Doc: "record previews show a field named summary as the primary text, over the declared one",
		Apply: promoteSummary()},
	{ID: "inline-base64-body", Kills: []string{"S038.1", "S038.3", "S050.1", "S050.2"}, Doc: "record previews inline base64 bodies",
		Apply: inlineBase64Body()},
	{ID: "drop-blob-routes", Kills: []string{"S038.2", "S050.2"}, Doc: "record previews and fetch show a blob's metadata but not its grant-scoped route",
		Apply: dropBlobRoutes()},
	{ID: "hide-binary-fields", Kills: []string{"S038.1", "S050.1", "S050.2"}, Doc: "record previews drop binary fields without a word: no metadata, no continuation",
		Apply: hideBinaryFields()},
	{ID: "hide-evidence-lines", Kills: []string{"S043.1", "S043.3"}, Doc: "search text drops the evidence excerpts",
		Apply: onSearchText(hideEvidenceLines)},
	{ID: "cut-preview-says-complete", Kills: []string{"S043.1"}, Doc: "search's evidence lines say complete=true of previews cut from a longer field",
		Apply: withMiddleware(onResult("search", cutPreviewsSayComplete(true)))},
	{ID: "cut-preview-status-complete", Kills: []string{"S043.1"}, Doc: "search's structuredContent gives previews cut from a longer field the preview_status complete; the text still says complete=false",
		Apply: withMiddleware(onResult("search", cutPreviewsSayComplete(false)))},
	{ID: "hit-handle-names-first-stream", Kills: []string{"S033.1"}, Doc: "search hits of another stream than the first hit's show an id naming the first hit's stream (text and structuredContent): fetch refuses it",
		Apply: withMiddleware(onResult("search", firstStreamHandles))},
	{ID: "swap-hit-handles-on-later-pages", Kills: []string{"S033.2", "S034.2"}, Doc: "on a search page read with a cursor, the first two hits carry each other's handles, in structuredContent and text, so the text shows each hit under the other's handle",
		Apply: withMiddleware(onResult("search", swapHitHandlesOnLaterPages))},
	{ID: "swap-first-hit-handles", Kills: []string{"S024.2", "S033.2", "S034.2", "S045.1"}, Doc: "the first two hits of every search page carry each other's handles, in structuredContent and text; each keeps its own stated record, title and snippet (so the text shows each hit's evidence under the other's handle, a metadata-only hit's among them)",
		Apply: withMiddleware(onResult("search", swapFirstHitHandles))},
	{ID: "text-titles-shifted", Kills: []string{"S024.2", "S034.2"}, Doc: "search's text prints each hit's handle beside the next hit's title; structuredContent keeps the right titles",
		Apply: onSearchText(shiftTextTitles)},
	{ID: "hit-source-from-first-hit", Kills: []string{"S024.2", "S034.2"}, Collateral: []string{"S028"}, Doc: "search states every hit's connection_id, connector_key and display label as the first hit's, in structuredContent and the text's titles (ids and handles stay right; S028 too: a scoped search's hits claim another connection)",
		Apply: withMiddleware(onResult("search", hitSourceFromFirst))},
	{ID: "evidence-without-id", Kills: []string{"S043.2"}, Doc: "search's evidence lines name no record id, so the bounded read cannot be asked for from them",
		Apply: onSearchText(func(text string) string { return evidenceIDRe.ReplaceAllString(text, "$1") })},
	{ID: "evidence-field-as-data-path", Kills: []string{"S043.2"}, Collateral: []string{"S045"}, Doc: "search's evidence lines name the field as data.<field>, a path read_record_field does not take (S045 too: evidence claimed in a field the record does not have reads as invented)",
		Apply: onSearchText(func(text string) string { return evidenceFieldRe.ReplaceAllString(text, "${1}data.") })},
	{ID: "evidence-term-only", Kills: []string{"S044.1", "S044.2"}, Doc: "evidence previews collapse to the highlighted term",
		Apply: onHits(evidenceTermOnly)},
	{ID: "evidence-after-match", Kills: []string{"S044.1"}, Doc: "evidence previews start just after their match and drop its marks: plain text of the proven window, without the match",
		Apply: onHits(evidenceAfterMatch)},
	{ID: "mark-word-before", Kills: []string{"S044.1"}, Doc: "evidence previews mark the word before the match instead of the match",
		Apply: onHits(markWordBefore)},
	{ID: "invent-evidence", Kills: []string{"S045.1"}, Doc: "metadata-only hits get an invented body evidence window",
		Apply: onHits(inventEvidence)},
	{ID: "hide-unproven-hit-ids", Kills: []string{"S034.2", "S045.2"}, Doc: "search's text drops the id of every hit without an evidence window",
		Apply: hideUnprovenHitIDs()},
	{ID: "rotate-evidence-previews", Kills: []string{"S045.1"}, Doc: "each evidence preview shows another hit's text",
		Apply: onHits(rotateEvidencePreviews)},
	{ID: "emit-dead-record-uri", Kills: []string{"S046.1", "S035.1"}, Doc: "search shows pdpp://record/ URIs that fetch rejects",
		Apply: emitDeadRecordURI()},
	{ID: "undocument-handle-ids", Kills: []string{"S046.2"}, Doc: "search hits show their pdpp://record/ URI, which fetch takes, but the tools' documentation no longer says their ids may be pdpp:// handles",
		Apply: all(withMiddleware(undocumentHandleIDs()), showHitURIs())},
	{ID: "emit-field-window-uri", Kills: []string{"S047.1", "S047.2", "S048.2"}, Doc: "read_record_field shows a pdpp://field-window/ URI nothing can read",
		Apply: onWindow(emitFieldWindowURI)},
	{ID: "drop-window-continuation-args", Kills: []string{"S033.1", "S048.1", "S050.2"}, Doc: "incomplete windows show no next arguments",
		Apply: onWindow(dropWindowArgs(true))},
	{ID: "drop-previous-window-args", Kills: []string{"S048.1"}, Doc: "a later window shows no previous arguments",
		Apply: onWindow(dropWindowArgs(false))},
	{ID: "window-end-says-more", Kills: []string{"S049.1"}, Doc: "a window that reaches its field's end still says complete=false and offers a next window from the end, which reads nothing",
		Apply: onWindow(windowEndSaysMore)},
	{ID: "cut-window-says-complete", Kills: []string{"S048.1", "S050.3"}, Doc: "the text of a window that ends before its field says complete=true (structuredContent still says false): a large field read on from its preview passes for whole",
		Apply: onWindow(cutWindowSaysComplete)},
	{ID: "q-window-says-complete", Kills: []string{"S048.1"}, Doc: "a window read around a match says complete=true in structuredContent (its text's flag too), though it holds a part of a long field",
		Apply: onWindow(qWindowSaysComplete)},
	{ID: "text-swaps-next-previous", Kills: []string{"S048.1"}, Doc: "a window's text prints the previous window's read_record_field arguments under next and the next window's under previous (structuredContent is right)",
		Apply: onWindow(textSwapsNextPrevious)},
	{ID: "next-skips-a-window", Kills: []string{"S048.1"}, Collateral: []string{"S033", "S050"}, Doc: "from the second window on, the next read_record_field arguments skip a window: text and structuredContent point one window further on (S033 and S050 too: they read a field to its end)",
		Apply: onWindow(nextSkipsAWindow)},
	{ID: "next-skips-from-fourth-window", Kills: []string{"S033.2", "S050.2"}, Doc: "from the fourth window of a field on, the next read_record_field arguments skip a window: text and structuredContent point one window further on",
		Apply: onWindow(nextSkipsFromFourthWindow)},
	{ID: "q-window-next-restarts", Kills: []string{"S048.1"}, Doc: "the next arguments of a window read around a match restart near the field's start, before the match",
		Apply: onWindow(qNextRestarts)},
	{ID: "window-range-lags", Kills: []string{"S048.1"}, Doc: "a window read past the field's start states the window before it as its served range, in text and structuredContent",
		Apply: onWindow(rangeLagsByAWindow)},
	{ID: "last-window-says-more", Kills: []string{"S048.1"}, Doc: "a window read from past the field's start to its end says has_more=true, in text and structuredContent, and offers no next window",
		Apply: onWindow(lastWindowSaysMore)},
	{ID: "window-text-drops-lead", Kills: []string{"S048.1"}, Collateral: []string{"S033", "S052"}, Doc: "read_record_field's text shows a window without its first 12 characters; the served range and structuredContent are unchanged (S033 and S052 too: a continuation read lacks the text it continues with, and the CLI, which prints the whole window, no longer matches)",
		Apply: windowTextDropsLead()},
	{ID: "previous-skips-a-window", Kills: []string{"S048.1"}, Doc: "each window's previous read_record_field arguments go two windows back, not one (clamped at 0)",
		Apply: onWindow(previousSkipsBack)},
	{ID: "last-window-end-past-field", Kills: []string{"S048.1"}, Doc: "a last window's end is stated as its start plus the length asked, past the field's end, in text and structuredContent",
		Apply: onWindow(endPastField)},
	{ID: "last-window-says-more-follows", Kills: []string{"S048.1"}, Doc: "a window read from past the field's start to its end says in words that more text follows, and more_after=true in structuredContent",
		Apply: onWindow(lastWindowSaysMoreFollows)},
	{ID: "seek-match-offset-window-relative", Kills: []string{"S048.1"}, Doc: "read_record_field takes its query as seek (named only in the reads search evidence prints) and gives match offsets relative to the window, beside the field's served range",
		Apply: seekMatchRelative()},
	{ID: "continuation-total-is-window-end", Kills: []string{"S048.1"}, Doc: "a window read from past the field's start gives its own end as the field's total size, in text and structuredContent",
		Apply: onWindow(continuationTotalIsWindowEnd)},
	{ID: "window-total-off-in-structure", Kills: []string{"S048.1", "S049.1"}, Doc: "every window's structuredContent states the field's total as 37 characters more than it holds; the text's total is right",
		Apply: onWindow(structuredTotalOff)},
	{ID: "window-range-end-short-in-text", Kills: []string{"S048.1"}, Doc: "every window's text states its served range ending 10 characters before the text it shows ends; structuredContent is right",
		Apply: onWindow(textRangeEndShort)},
	{ID: "match-start-off-in-structure", Kills: []string{"S048.1"}, Doc: "a window read around a match states the match's start 5 characters late in structuredContent; its text is right",
		Apply: onWindow(matchStartOffInStructure)},
	{ID: "evidence-field-relabelled-query-echoed", Kills: []string{"S034.2", "S043.1", "S043.2", "S043.3", "S045.1"}, Doc: "search's text echoes the query in its header, shows top results without snippets, and names the first evidence line's field subject, printing its read on subject (structuredContent is right): the preview's read reads the wrong field (S034 and S045 too: that read fails, and the evidence then claims a match in subject)",
		Apply: withMiddleware(onResult("search", relabelFirstEvidenceField))},
	{ID: "omit-window-total", Kills: []string{"S049.1"}, Doc: "a window shows no total size, in text or structuredContent",
		Apply: onWindow(omitWindowTotal)},
	{ID: "silent-cut-fetch-text", Kills: []string{"S033.1", "S050.1", "S050.2", "S050.3"}, Doc: "fetch cuts a long text to its limit without saying so, in text or metadata",
		Apply: onFetch(silentCutFetchText)},
	{ID: "cut-fetch-text-says-whole", Kills: []string{"S050.3"}, Doc: "fetch cuts a long text with its mark and continuation, but its metadata says text_truncated=false, in structuredContent and the text's JSON mirror",
		Apply: onFetch(cutFetchTextSaysWhole)},
	{ID: "cut-preview-status-complete-in-records", Kills: []string{"S050.3"}, Doc: "query_records' structuredContent gives a cut preview of a large text the preview_status complete; its text still marks the cut",
		Apply: cutPreviewStatusCompleteInRecords()},
	{ID: "silent-cut-record-preview", Kills: []string{"S050.1", "S050.2"}, Doc: "a large text in a record preview is cut with only its ellipsis: no size and no continuation",
		Apply: silentCutRecordPreview()},
	{ID: "no-json-field-windows", Kills: []string{"S050.2"}, Doc: "read_record_field refuses a JSON field as not text, so a large one is never readable in full",
		Apply: noJSONFieldWindows()},
	{ID: "cli-omit-read-command", Kills: []string{"S052.1"}, Doc: "pdpp-mcp search prints evidence without the read-field command",
		Apply: cliOmitReadCommand},
	{ID: "advertise-control-plane-kind", Kills: []string{"S039.3"}, Doc: "the MCP metadata lists control_plane among its token kinds",
		Apply: onMetadata(func(doc map[string]any) { doc["pdpp_token_kinds_supported"] = []string{"client", "control_plane"} })},
	{ID: "drop-mcp-endpoint-hint", Kills: []string{"S039.1"}, Doc: "the MCP metadata names no MCP endpoint",
		Apply: onMetadata(dropEndpointHint)},
	{ID: "drop-remote-client-setup", Kills: []string{"S040.2"}, Doc: "the setup page drops the ChatGPT and other remote clients section",
		Apply: onPage(adapter.SetupPath, dropRemoteClientSetup)},
	{ID: "setup-url-not-first", Kills: []string{"S040.1"}, Doc: "the setup page shows the MCP URL only inside the client commands",
		Apply: onPage(adapter.SetupPath, func(page string) string { return mcpURLRowRe.ReplaceAllString(page, "") })},
	{ID: "profile-on-connect", Kills: []string{"S010.2", "S040.3"}, Doc: "the setup page asks the user to pick a profile for the toolset",
		Apply: onPage(adapter.SetupPath, func(page string) string {
			return strings.Replace(page, "</body>", "<p>Pick the core, events or full profile to choose your toolset.</p></body>", 1)
		})},
	{ID: "profile-in-metadata", Kills: []string{"S039.2"}, Doc: "the MCP metadata advertises core/events/full profiles",
		Apply: onMetadata(func(doc map[string]any) { doc["pdpp_mcp_profiles"] = []string{"core", "events", "full"} })},
	{ID: "root-metadata-without-mcp-hint", Kills: []string{"S039.4"}, Doc: "the origin's root metadata drops its hint to the MCP endpoint",
		Apply: onJSONDoc(adapter.MetadataPath, func(doc map[string]any) { delete(doc, "pdpp_agent_discovery") })},
}

var binaryMediaRe = regexp.MustCompile(`\[binary-only: ([a-z]+/[a-z0-9.+-]+), `)

// mediaTypesInFooter moves each binary field's media type out of its
// record's preview into one footer line.
func mediaTypesInFooter(text string) string {
	var types []string
	text = binaryMediaRe.ReplaceAllStringFunc(text, func(m string) string {
		types = append(types, binaryMediaRe.FindStringSubmatch(m)[1])
		return "[binary-only: "
	})
	if len(types) == 0 {
		return text
	}
	return text + "\nMedia types on this page: " + strings.Join(slices.Compact(slices.Sorted(slices.Values(types))), ", ")
}
