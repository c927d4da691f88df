package variation

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pdpp-connect/mcpcheck/adapter"
	json "github.com/segmentio/encoding/json"
)

// readsMutants break query_records, aggregate, search and fetch: S023–S034, U05, U09.
var readsMutants = []Variation{
	{ID: "hide-paging-handles", Kills: []string{"S023.1", "S023.2"}, Doc: "query_records text drops next_cursor, next_changes_since and count",
		Apply: onRecordsText(hidePagingHandles)},
	{ID: "text-shows-unprojected-fields", Kills: []string{"S031.1"}, Collateral: []string{"S050"}, Doc: "query_records(fields) narrows structuredContent, but its text previews the whole records, unrequested fields included (S050 too: the whole preview leaves a requested large JSON field undescribed)",
		Apply: withMiddleware(onCall(textOfUnprojectedRead))},
	{ID: "projection-lost-on-next-page", Kills: []string{"S031.1"}, Doc: "query_records honours fields on the first page only: a call with a cursor drops them, so the next page shows whole records",
		Apply: withMiddleware(onArgs("query_records", func(_ context.Context, args map[string]json.RawMessage) {
			if args["cursor"] != nil {
				delete(args, "fields")
			}
		}))},
	{ID: "changes-bookmark-is-page-cursor", Kills: []string{"S023.2"}, Doc: "a changes page read with a cursor gives that cursor as its next_changes_since, in text and structuredContent: only the first page's bookmark resumes the feed",
		Apply: withMiddleware(onResult("query_records", bookmarkIsPageCursor))},
	{ID: "cut-field-read-names-subject", Kills: []string{"S033.2", "S050.2"}, Doc: "query_records' text offers each cut field's read_record_field call on the record's subject instead of the field cut (a large field's among them)",
		Apply: withMiddleware(onResult("query_records", func(_ *mcp.CallToolRequest, r *result) {
			if !r.IsError {
				r.setText(cutFieldReadRe.ReplaceAllString(r.text(), `${1}"subject"`))
			}
		}))},
	{ID: "count-text-stale", Kills: []string{"S023.2"}, Doc: "query_records text shows the count of the session's previous count-bearing read; structuredContent keeps the right one",
		Apply: staleCountText()},
	{ID: "aggregate-connection-dropped", Kills: []string{"S014.1", "U09.1"}, Collateral: []string{"S023"}, Doc: "aggregate accepts connection_id but never sends it to the RS, so a count covers every connection of the stream (S023 too: the count in text is not the RS's for the connection)",
		Apply: all(tracked(), onQuery(inTool("aggregate", isAggregate), func(_ *http.Request, q url.Values) { q.Del("connection_id") }))},
	{ID: "records-connection-sticky", Kills: []string{"S014.1"}, Collateral: []string{"S033"}, Doc: "query_records sends the first connection_id it was given on every later read of the same stream, whatever the call names (S033 too: its continuation of another connection's page shows the first connection's records)",
		Apply: all(tracked(), stickyConnection())},
	{ID: "evidence-read-points-to-neighbour", Kills: []string{"S043.2"}, Collateral: []string{"S045"}, Doc: "each evidence line's id (and its structured read) names the next evidence hit's record, so reading a preview's field reads the neighbour's (S045 too: a preview is then not text of the field its id reads)",
		Apply: all(onSearchText(rotateEvidenceIDs), withMiddleware(onResult("search", rotateEvidenceReads)))},
	{ID: "search-next-page-ids-unscoped", Kills: []string{"S034.2"}, Collateral: []string{"S033"}, Doc: "a search page reached with a cursor names its hits without their connection (stream:id), in text and structuredContent: fetch then finds the id ambiguous (S033 too: it follows the handles of that page)",
		Apply: withMiddleware(onResult("search", unscopeNextPageIDs))},
	{ID: "changes-bookmark-restarts", Kills: []string{"S023.2"}, Doc: "query_records accepts a next_changes_since but reads the feed from the beginning again",
		Apply: withMiddleware(onArgs("query_records", func(_ context.Context, args map[string]json.RawMessage) {
			if c := args["changes_since"]; c != nil && string(c) != `"beginning"` {
				args["changes_since"] = json.RawMessage(`"beginning"`)
			}
		}))},
	{ID: "search-cursor-from-first-search", Kills: []string{"S023.2"}, Doc: "each new search shows the first search's next_cursor as its own (text and structuredContent): a later search's next page is refused",
		Apply: firstSearchCursor()},
	{ID: "cursor-repeats-page-two", Kills: []string{"S023.2"}, Doc: "a page reached with a cursor shows that same cursor as its next one (text and structuredContent), so the first step pages on and the second repeats the page",
		Apply: withMiddleware(onResult("query_records", repeatCursor))},
	{ID: "hide-search-cursor", Kills: []string{"S023.1", "S023.2"}, Doc: "search text drops next_cursor",
		Apply: onSearchText(func(text string) string { return quotedHandleRe.ReplaceAllString(text, "") })},
	{ID: "leak-projected-fields", Kills: []string{"S031.1", "S031.2"}, Collateral: []string{"S050"}, Doc: "query_records(fields) neither forwards fields nor narrows records (S050 too: the whole preview leaves a requested large JSON field undescribed)",
		Apply: withMiddleware(onArgs("query_records", func(_ context.Context, args map[string]json.RawMessage) { delete(args, "fields") }))},
	{ID: "probe-children-for-ambiguity", Kills: []string{"S032.2"}, Doc: "the ambiguity error is built after reading every connection's records",
		Apply: probeChildren()},
	{ID: "list-13-ambiguity-entries", Kills: []string{"S032.4"}, Doc: "the ambiguity error lists 13 connections",
		Apply: tune(func(t *adapter.Tuning) { t.AmbiguityListLimit = 13 })},
	{ID: "cap-small-ambiguity-list", Kills: []string{"S032.3"}, Doc: "the ambiguity error lists one connection, even for a package of three (flagged as truncated)",
		Apply: tune(func(t *adapter.Tuning) { t.AmbiguityListLimit = 1 })},
	{ID: "ambiguity-list-says-whole", Kills: []string{"S032.4"}, Doc: "a capped ambiguity list says it is not truncated and omits none",
		Apply: onError(func(e map[string]any) {
			if _, ok := e["available_connections_truncated"]; ok {
				e["available_connections_truncated"], e["available_connections_omitted"] = false, 0
			}
		})},
	{ID: "drop-grant-id-from-ambiguity", Kills: []string{"S032.3"}, Doc: "ambiguity entries lack grant_id",
		Apply: ambiguity(func(entry map[string]any) { delete(entry, "grant_id") })},
	{ID: "hide-other-count", Kills: []string{"S023.1", "U09.2"}, Doc: "grouped aggregate text drops other_count, count metadata a client reading only text needs (S023.1)",
		Apply: onAggregateText(hideOtherCount)},
	{ID: "other-count-zeroed", Kills: []string{"S023.2", "U09.2"}, Doc: "a grouped aggregate states other_count as 0, in text and structuredContent, hiding that groups were cut",
		Apply: withMiddleware(onResult("aggregate", func(_ *mcp.CallToolRequest, r *result) {
			sc := r.structured()
			data, _ := sc["data"].(map[string]any)
			if r.IsError || data == nil || data["other_count"] == nil {
				return
			}
			data["other_count"] = 0
			r.setStructured(sc)
			r.setText(otherCountRe.ReplaceAllString(r.text(), " other_count=0;"))
		}))},
	{ID: "unbounded-buckets", Kills: []string{"U09.3"}, Doc: "grouped aggregate text previews every group, with no more_groups",
		Apply: tune(func(t *adapter.Tuning) { t.AggregateGroups = math.MaxInt32 })},
	{ID: "skip-granularity-gate", Kills: []string{"U09.5"}, Doc: "group_by_time without granularity (or the reverse) goes to the RS unchecked",
		Apply: skipGranularityGate()},
	{ID: "hide-aggregate-value", Kills: []string{"S023.1", "U09.1"}, Doc: "a scalar aggregate's text leaves its value to structuredContent: a count, count metadata a client reading only text needs (S023.1)",
		Apply: onAggregateText(func(text string) string { return scalarValueRe.ReplaceAllString(text, "$1 computed.") })},
	{ID: "describe-aggregate-without-other-count", Kills: []string{"U09.4"}, Doc: "the aggregate description no longer names other_count",
		Apply: describe("aggregate", func(d string) string {
			return strings.Replace(d, " other_count counts records in groups past limit.", "", 1)
		})},
	{ID: "per-connection-search-limit", Kills: []string{"S024.1"}, Doc: "search asks the RS for 100 hits and applies limit per connection, not to the merged hits",
		Apply: perConnectionSearchLimit()},
	{ID: "drop-source-mix", Kills: []string{"S025.1"}, Doc: "search text omits the source mix",
		Apply: onSearchText(dropSourceMix)},
	{ID: "miscount-source-mix", Kills: []string{"S025.1"}, Doc: "the source mix counts hits of every connection after the first twice",
		Apply: onSearchText(miscountSourceMix)},
	{ID: "collapse-source-mix", Kills: []string{"S025.1"}, Doc: "the source mix credits every hit to its first connection and names no other",
		Apply: onSearchText(collapseSourceMix)},
	{ID: "strip-closing-marks", Kills: []string{"S026.1"}, Doc: "search snippets lose their </mark> tags",
		Apply: onSearchResults(func(res map[string]any) {
			if s, ok := res["snippet"].(string); ok {
				res["snippet"] = strings.ReplaceAll(s, "</mark>", "")
			}
		})},
	{ID: "cut-through-mark-tag", Kills: []string{"S026.1"}, Doc: "search cuts snippets and evidence previews at 100 characters, through any highlight tag there",
		Apply: onSearchResults(cutPreviewsAt(100))},
	{ID: "snippet-as-title", Kills: []string{"S027.1", "S026.1"}, Doc: "a hit without a source title is titled by its snippet",
		Apply: onHits(snippetAsTitle)},
	{ID: "ignore-record-order", Kills: []string{"S014.1"}, Doc: "query_records accepts order but never forwards it: an ascending read returns the default order",
		Apply: onQuery(isRecordList, func(_ *http.Request, q url.Values) { q.Del("order") })},
	{ID: "ignore-changes-from-beginning", Kills: []string{"S014.1"}, Doc: "query_records drops changes_since=beginning: a changes read from the start returns an ordinary page",
		Apply: onQuery(isRecordList, func(_ *http.Request, q url.Values) {
			if q.Get("changes_since") == "beginning" {
				q.Del("changes_since")
			}
		})},
	{ID: "ignore-aggregate-grouping", Kills: []string{"S014.1"}, Collateral: []string{"S023", "U09"}, Doc: "aggregate accepts group_by but never forwards it: a grouped count returns one total (S023 and U09 too: its aggregate text shows no groups)",
		Apply: onQuery(isAggregate, func(_ *http.Request, q url.Values) { q.Del("group_by"); q.Del("limit") })},
	{ID: "ignore-search-streams", Kills: []string{"S014.1"}, Doc: "search accepts streams but never forwards it: a search restricted to one stream returns hits of every stream",
		Apply: onQuery(pathIs("/v1/search"), func(_ *http.Request, q url.Values) { q.Del("streams"); q.Del("streams[]") })},
	{ID: "first-search-page-says-no-more", Kills: []string{"S023.1"}, Doc: "a first search page that has more says has_more=false, in text and structuredContent (its cursor stays)",
		Apply: withMiddleware(onResult("search", firstPageSaysNoMore))},
	{ID: "preview-as-title-unkeyed", Kills: []string{"S027.1"}, Doc: "search drops the snippet key and titles a hit without a source title by its evidence preview, highlights removed",
		Apply: onSearchResults(previewAsTitle)},
	{ID: "metadata-hit-reads-missing-match", Kills: []string{"S045.2"}, Collateral: []string{"S034"}, Doc: "search's text offers each metadata-only hit a read of its body around the searched text, which its body does not hold: the printed path fails (S034 too: it follows the reads a search text prints)",
		Apply: withMiddleware(onResult("search", readBodyForMetadataHits))},
	{ID: "title-from-emitted-at", Kills: []string{"S027.2"}, Doc: "fallback titles use emitted_at even when an authored time exists",
		Apply: onHits(titleFromEmittedAt)},
	{ID: "drop-search-connection-id", Kills: []string{"S028.1", "S028.2"}, Doc: "search ignores connection_id",
		Apply: onQuery(pathIs("/v1/search"), func(_ *http.Request, q url.Values) { q.Del("connection_id") })},
	{ID: "add-fetch-data-key", Kills: []string{"S029.1", "S029.3", "S030.2"}, Doc: "fetch adds the canonical record under structuredContent.data (content[] still mirrors the document; S038.3 is not among its kills: seed 002 keeps binary bodies out of model-visible text, which this leaves alone)",
		Apply: onFetch(addFetchDataKey)},
	{ID: "add-content-ladder", Kills: []string{"S029.1"}, Doc: "fetch adds a content_ladder object beside the document in structuredContent, as upstream does; content[] mirrors the document alone",
		Apply: onFetch(addContentLadder)},
	{ID: "guess-document-by-name", Kills: []string{"S037.2"}, Doc: "fetch titles its document from title, name, subject or summary and takes its text from text, content, body or summary by name, over the declared display roles",
		Apply: onFetch(guessDocumentByName)},
	{ID: "stale-fetch-mirror", Kills: []string{"S029.2"}, Collateral: []string{"S038"}, Doc: "fetch's content[] mirror drops the document's metadata; structuredContent keeps it (S038 too: the binary field's metadata leaves the text)",
		Apply: onFetch(staleFetchMirror)},
	{ID: "mirror-shortens-long-text", Kills: []string{"S029.2"}, Doc: "fetch's content[] mirror cuts a document text over 400 characters to 240; structuredContent keeps the whole text",
		Apply: onFetch(shortLongMirrorText)},
	{ID: "scoped-search-cursor-drops-connection", Kills: []string{"S028.1"}, Collateral: []string{"S023"}, Doc: "search forwards a cursor without its connection_id, so the next page of a scoped search leaves the connection (the RS refuses the cursor; S023 too: it pages a scoped search from its text)",
		Apply: withMiddleware(onArgs("search", func(_ context.Context, args map[string]json.RawMessage) {
			if _, paged := args["cursor"]; paged {
				delete(args, "connection_id")
			}
		}))},
	{ID: "fetch-total-is-cut-length", Kills: []string{"S050.1"}, Doc: "fetch states a cut text's shown length as the field's total size in metadata; the cut mark and continuation stay",
		Apply: onFetch(cutLengthAsTotal)},
	{ID: "fetch-continuation-skips-ahead", Kills: []string{"S033.2", "S050.2"}, Doc: "a fetched document's read_record_field continuation starts at twice the offset where its text stopped, in text and metadata: the read skips as much as was shown",
		Apply: onFetch(continuationSkipsAhead)},
	{ID: "stale-mirror-title", Kills: []string{"S029.2"}, Collateral: []string{"S030", "S034"}, Doc: "fetch's content[] mirror carries the title of the document fetched before it; structuredContent is right (S030 and S034 too: the text a content-only host reads names another document)",
		Apply: staleMirrorTitle()},
	{ID: "ignore-fetch-fields", Kills: []string{"S030.2"}, Collateral: []string{"S050"}, Doc: "fetch(fields) neither forwards nor applies the projection",
		Apply: withMiddleware(onArgs("fetch", func(_ context.Context, args map[string]json.RawMessage) { delete(args, "fields") }))},
	{ID: "leak-unrequested-fields-to-metadata", Kills: []string{"S030.2"}, Doc: "fetch(fields) copies fields the RS added beyond the projection into metadata (seen only against an RS that ignores fields: mcpcheck's own defence in depth, recommended)",
		Apply: onFetch(leakUnrequestedFields)},
	{ID: "hide-fetch-ids", Kills: []string{"S034.2", "S045.2"}, Doc: "search lists its top results, and drops first_fetch_id, without the hits' ids (evidence lines keep theirs)",
		Apply: onSearchText(hideFetchIDs)},
	{ID: "forward-traversal-id", Kills: []string{"U05.2"}, Doc: "fetch ids are split without rejecting traversal",
		Apply: tune(func(t *adapter.Tuning) { t.IDs = laxIDs{} })},
	{ID: "drop-preview-ids", Kills: []string{"S033.1", "S034.2", "S050.2"}, Collateral: []string{"S038"}, Doc: "cut record previews carry no id and no continuation",
		Apply: onRecordsText(dropPreviewIDs)},
	{ID: "structured-only-omission-markers", Kills: []string{"S033.1", "S034.2"}, Doc: "more_results, more_records and more_fields point only at structuredContent (S034 too: records past the text are then reached only there)",
		Apply: structuredOnlyOmissions()},
	{ID: "drop-hit-connector-key", Kills: []string{"S024.2"}, Doc: "search hits carry no connector_key",
		Apply: onSearchResults(func(res map[string]any) { delete(res, "connector_key") })},
	{ID: "metadata-hit-claims-body-match", Kills: []string{"S045.1"}, Doc: "search labels each hit without an evidence snippet as matched in body (matched_fields in structuredContent), though its match is metadata only",
		Apply: onSearchResults(func(res map[string]any) {
			if _, evidenced := res["snippet"]; !evidenced && res["stream"] == "messages" {
				res["matched_fields"] = []any{"body"}
			}
		})},
	{ID: "sentinel-highlights", Kills: []string{"S026.2"}, Doc: "search hits' snippets in structuredContent write highlights as **term** instead of <mark> tags",
		Apply: onSearchResults(func(res map[string]any) {
			if s, ok := res["snippet"].(string); ok {
				res["snippet"] = markSentinels.Replace(s)
			}
		})},
	{ID: "drop-fetch-source-identity", Kills: []string{"S029.4", "S030.3"}, Doc: "fetch metadata carries no connection_id, connector_key or stream",
		Apply: onFetch(dropSourceIdentity)},
	{ID: "render-before-projection", Kills: []string{"S030.1"}, Doc: "fetch(fields) renders the document from the stream's text and drops the requested fields' values from it",
		Apply: onFetch(dropRequestedValues)},
	{ID: "text-drops-last-record", Kills: []string{"S033.1", "S034.2", "S050.1"}, Doc: "query_records' text leaves out the page's last record line; its header and structuredContent still hold it (S033 and S050 too: the record's preview and the calls to it are gone from the text)",
		Apply: dropLastRecordLine()},
	{ID: "schema-ambiguity-retries-with-connector", Kills: []string{"S022.2"}, Doc: "schema(stream, detail: full)'s disambiguation error says retry_with connector_id; its message still names connection_id",
		Apply: withMiddleware(onResult("schema", func(_ *mcp.CallToolRequest, r *result) {
			if e := r.errorObject(); e != nil && e["retry_with"] != nil {
				e["retry_with"] = "connector_id"
				r.setError(e)
			}
		}))},
	{ID: "preview-read-skips-past-cut", Kills: []string{"S033.1"}, Doc: "the read query_records' text offers for a text it cut starts at character 4096, past what the preview left out (structuredContent is unchanged)",
		Apply: withMiddleware(onResult("query_records", func(_ *mcp.CallToolRequest, r *result) {
			if !r.IsError {
				r.setText(cutReadFromStartRe.ReplaceAllString(r.text(), `${1}"offset_chars":4096}`))
			}
		}))},
	{ID: "top-result-title-other-label", Kills: []string{"S024.2", "S034.2"}, Doc: "search's text titles its first top result with the second's connection label when they differ (structuredContent is right)",
		Apply: onSearchText(firstTitleTakesSecondLabel)},
	{ID: "schema-ambiguity-code-generic", Kills: []string{"S022.2"}, Doc: "schema(stream, detail: full)'s disambiguation error for a stream of several sources is coded invalid_request; it keeps retry_with and its candidates",
		Apply: withMiddleware(onResult("schema", func(_ *mcp.CallToolRequest, r *result) {
			if e := r.errorObject(); e != nil && strings.HasPrefix(str(e["code"]), "ambiguous") {
				e["code"] = "invalid_request"
				r.setError(e)
			}
		}))},
	{ID: "schema-ambiguity-drops-candidate", Kills: []string{"S022.2"}, Doc: "schema(stream, detail: full)'s disambiguation error lists every source of the stream but the last, with no word of the one left out",
		Apply: withMiddleware(onResult("schema", func(_ *mcp.CallToolRequest, r *result) {
			if e := r.errorObject(); e != nil {
				if list, ok := e["available_connections"].([]any); ok && len(list) > 1 {
					e["available_connections"] = list[:len(list)-1]
					r.setError(e)
				}
			}
		}))},
	{ID: "ambiguity-without-retry-with", Kills: []string{"S032.1"}, Doc: "the ambiguous_connection error does not say to retry with connection_id",
		Apply: onError(func(e map[string]any) {
			if e["code"] == "ambiguous_connection" {
				delete(e, "retry_with")
			}
		})},
	{ID: "ambiguity-grant-id-is-connection", Kills: []string{"S032.3"}, Doc: "each available_connections entry of the ambiguous_connection error gives its connection_id as grant_id",
		Apply: onError(func(e map[string]any) {
			if list, ok := e["available_connections"].([]any); ok && e["code"] == "ambiguous_connection" {
				for _, x := range list {
					if m, ok := x.(map[string]any); ok {
						m["grant_id"] = m["connection_id"]
					}
				}
			}
		})},
	{ID: "ambiguity-connector-key-smeared", Kills: []string{"S032.3"}, Doc: "every available_connections entry of the ambiguous_connection error names the first entry's connector_key, whatever its connection's connector",
		Apply: onError(func(e map[string]any) {
			if list, ok := e["available_connections"].([]any); ok && e["code"] == "ambiguous_connection" && len(list) > 0 {
				first, _ := list[0].(map[string]any)
				for _, x := range list {
					if m, ok := x.(map[string]any); ok && first != nil {
						m["connector_key"] = first["connector_key"]
					}
				}
			}
		})},
	{ID: "continue-another-field", Kills: []string{"S033.2", "S050.2"}, Doc: "the read_record_field call that continues a cut fetch text names another field of the record",
		Apply: onFetch(continueAnotherField)},
	{ID: "continue-preview-elsewhere", Kills: []string{"S033.2"}, Doc: "each read_record_field continuation of a cut record preview names another field of the record, one the preview shows whole",
		Apply: continuePreviewElsewhere()},
	{ID: "last-page-says-more", Kills: []string{"S023.2"}, Doc: "the text of the last page says has_more=true (structuredContent says false)",
		Apply: withMiddleware(onResult("query_records", lastPageSaysMore))},
	{ID: "rotate-record-handles", Kills: []string{"S034.2"}, Doc: "query_records' text prints each record's content under the next record's handle (structuredContent is right)",
		Apply: onRecordsText(rotateRecordHandles)},
	{ID: "rotate-record-handles-on-later-pages", Kills: []string{"S034.2"}, Doc: "on a page read with a cursor, query_records' text prints each record's content under the next record's handle (the first page and structuredContent are right)",
		Apply: withMiddleware(onResult("query_records", func(req *mcp.CallToolRequest, r *result) {
			var in struct {
				Cursor string `json:"cursor"`
			}
			if !r.IsError && json.Unmarshal(req.Params.Arguments, &in) == nil && in.Cursor != "" {
				r.setText(rotateRecordHandles(r.text()))
			}
		}))},
	{ID: "drop-record-handles-from-text", Kills: []string{"S034.2"}, Collateral: []string{"S033"}, Doc: "query_records' text prints each record without its handle; structuredContent keeps the ids (S033 too: the records the text shows past the preview cannot be told by id)",
		Apply: onRecordsText(func(text string) string { return recordLineHandleRe.ReplaceAllString(text, "$1") })},
	{ID: "cursor-labelled-as-bookmark", Kills: []string{"S023.2"}, Doc: "query_records' text prints the page cursor of a page that has no change bookmark as next_changes_since (structuredContent is right)",
		Apply: onRecordsText(func(text string) string {
			if strings.Contains(text, "next_changes_since=") {
				return text
			}
			return strings.Replace(text, " next_cursor=", " next_changes_since=", 1)
		})},
	{ID: "bookmark-labelled-as-cursor", Kills: []string{"S023.2"}, Doc: "query_records' text prints the change bookmark under the label next_cursor (structuredContent is right)",
		Apply: onRecordsText(func(text string) string { return strings.Replace(text, " next_changes_since=", " next_cursor=", 1) })},
	{ID: "changes-page-says-no-more", Kills: []string{"S023.2"}, Doc: "a changes page that has a next cursor says has_more=false, in text and structuredContent",
		Apply: withMiddleware(onResult("query_records", changesPageSaysNoMore))},
	{ID: "changes-cursor-as-listing", Kills: []string{"S023.2"}, Doc: "a changes page's next cursor is re-minted as an ordinary listing cursor at the same offset, in text and structuredContent: following it leaves the feed",
		Apply: withMiddleware(onResult("query_records", changesCursorAsListing))},
	{ID: "later-page-count-less-offset", Kills: []string{"S023.2"}, Doc: "the text of a page reached with a cursor states the count less three (structuredContent keeps the RS's)",
		Apply: withMiddleware(onResult("query_records", countLessOffset))},
	{ID: "search-cursor-drops-limit", Kills: []string{"S024.1"}, Doc: "search forwards a cursor without its limit, so the next page holds the RS's default number of hits",
		Apply: dropArgWhen("search", "limit", "cursor")},
	{ID: "records-cursor-drops-limit", Kills: []string{"S014.1"}, Doc: "query_records forwards a cursor without its limit, so the next page holds the RS's default number of records",
		Apply: dropArgWhen("query_records", "limit", "cursor")},
	{ID: "ignore-window-length", Kills: []string{"S014.1"}, Collateral: []string{"S048"}, Doc: "read_record_field accepts limit_chars but does not forward it, so every window is the RS's default 4096 characters, truthfully labelled (S048 too: its windows end elsewhere)",
		Apply: withMiddleware(onArgs("read_record_field", func(_ context.Context, args map[string]json.RawMessage) { delete(args, "limit_chars") }))},
	{ID: "ignore-granularity", Kills: []string{"S014.1"}, Doc: "aggregate forwards every time grouping by day, whatever granularity was asked",
		Apply: withMiddleware(onArgs("aggregate", func(_ context.Context, args map[string]json.RawMessage) {
			if _, timed := args["granularity"]; timed {
				args["granularity"] = json.RawMessage(`"day"`)
			}
		}))},
	{ID: "aggregate-text-count-off-by-one", Kills: []string{"S023.2"}, Collateral: []string{"U09"}, Doc: "aggregate's text states an ungrouped count one less than the RS's (structuredContent is right)",
		Apply: withMiddleware(onResult("aggregate", textCountOffByOne))},
	{ID: "forward-first-field-only", Kills: []string{"S014.1"}, Doc: "query_records forwards only the first of several fields asked for",
		Apply: withMiddleware(onArgs("query_records", func(_ context.Context, args map[string]json.RawMessage) {
			var fields []string
			if json.Unmarshal(args["fields"], &fields) == nil && len(fields) > 1 {
				args["fields"], _ = json.Marshal(fields[:1])
			}
		}))},
	{ID: "forward-first-stream-only", Kills: []string{"S014.1"}, Doc: "search forwards only the first of several streams asked for",
		Apply: withMiddleware(onArgs("search", func(_ context.Context, args map[string]json.RawMessage) {
			var streams []string
			if json.Unmarshal(args["streams"], &streams) == nil && len(streams) > 1 {
				args["streams"], _ = json.Marshal(streams[:1])
			}
		}))},
	{ID: "coarsen-granularity", Kills: []string{"S014.1", "U09.1"}, Doc: "aggregate forwards each time grouping one granularity coarser (day as week, week as month, month as year)",
		Apply: withMiddleware(onArgs("aggregate", func(_ context.Context, args map[string]json.RawMessage) {
			var g string
			coarser := map[string]string{"day": "week", "week": "month", "month": "year"}
			if json.Unmarshal(args["granularity"], &g) == nil && coarser[g] != "" {
				args["granularity"], _ = json.Marshal(coarser[g])
			}
		}))},
	{ID: "fetch-ambiguity-as-not-found", Kills: []string{"S032.1"}, Doc: "fetch of a record id several connections hold answers not_found instead of the ambiguous_connection error",
		Apply: withMiddleware(onResult("fetch", func(_ *mcp.CallToolRequest, r *result) {
			if !r.IsError || !strings.Contains(r.text(), "ambiguous_connection") {
				return
			}
			notFound := map[string]any{"code": "not_found", "message": "Record was not found in the granted streams.", "type": "adapter_error"}
			r.setStructured(map[string]any{"error": notFound})
			r.setText(string(mustJSON(notFound)))
		}))},
	{ID: "ignore-match-context", Kills: []string{"S014.1"}, Doc: "read_record_field accepts before_chars and after_chars but does not forward them, so a read around a match is the RS's default 4096-character window",
		Apply: withMiddleware(onArgs("read_record_field", func(_ context.Context, args map[string]json.RawMessage) {
			delete(args, "before_chars")
			delete(args, "after_chars")
		}))},
	{ID: "count-capped-at-page", Kills: []string{"S014.1", "S023.2", "U09.1"}, Doc: "aggregate states an ungrouped count over 25 as 25, one default page's worth, in text and structuredContent, so no client can check the RS's count from the text",
		Apply: withMiddleware(onResult("aggregate", countCappedAtPage))},
	{ID: "blob-size-as-encoded", Kills: []string{"S050.1"}, Doc: "query_records' text states each binary field's size as its base64 length, not its bytes",
		Apply: onRecordsText(encodedBlobSize)},
	{ID: "page-count-is-limit", Kills: []string{"S023.2"}, Doc: "query_records' text states every page's record count as the limit asked, a short last page included (structuredContent is right)",
		Apply: withMiddleware(onResult("query_records", pageCountIsLimit))},
	{ID: "aggregate-metric-as-count", Kills: []string{"S014.1"}, Doc: "aggregate forwards every metric as count and drops its field",
		Apply: withMiddleware(onArgs("aggregate", func(_ context.Context, args map[string]json.RawMessage) {
			if _, has := args["metric"]; has {
				args["metric"] = json.RawMessage(`"count"`)
				delete(args, "field")
			}
		}))},
	{ID: "changes-read-drops-fields", Kills: []string{"S031.1"}, Doc: "query_records does not forward fields on a changes read (changes_since set), so those records come whole",
		Apply: dropArgWhen("query_records", "fields", "changes_since")},
	{ID: "drop-records-filter", Kills: []string{"S014.1"}, Collateral: []string{"U01"}, Doc: "query_records accepts filter but does not forward it, so the page comes unfiltered (U01 too: the RS never receives the filter)",
		Apply: withMiddleware(onArgs("query_records", func(_ context.Context, args map[string]json.RawMessage) { delete(args, "filter") }))},
	{ID: "drop-count-argument", Kills: []string{"S014.1"}, Doc: "query_records accepts count but does not forward it, so no count comes back",
		Apply: withMiddleware(onArgs("query_records", func(_ context.Context, args map[string]json.RawMessage) { delete(args, "count") }))},
	{ID: "fan-in-text-credits-first-source", Kills: []string{"S032.1"}, Doc: "query_records fans in over a stream several connections serve, and its text names every record's connection as the first record's (structuredContent right)",
		Apply: all(tune(func(t *adapter.Tuning) { t.UnscopedLists = adapter.UnscopedListsFanIn }), onRecordsText(creditFirstConnection))},
	{ID: "records-ids-only", Kills: []string{"S034.1"}, Collateral: []string{"S037", "S050"}, Doc: "query_records previews each record by its id alone, none of its content",
		Apply: onRecordsText(func(text string) string { return previewLineRe.ReplaceAllString(text, "record id=$1") })},
	{ID: "forward-sort-and-order", Kills: []string{"U17.2"}, Doc: "query_records forwards sort and order as given (sort=field&order=desc) instead of canonical sort, so the RS refuses a descending read: sort and order disagree",
		Apply: onQuery(isRecordList, func(_ *http.Request, q url.Values) {
			if s := q.Get("sort"); strings.HasPrefix(s, "-") && !strings.Contains(s, ",") {
				q.Set("sort", strings.TrimPrefix(s, "-"))
				q.Set("order", "desc")
			}
		})},
	{ID: "reject-legacy-ids", Kills: []string{"U05.1"}, Doc: "fetch rejects a legacy stream:record_id id even with connection_id",
		Apply: tune(func(t *adapter.Tuning) { t.IDs = pathOnlyIDs{} })},
}

// scalarValueRe is a scalar aggregate's "metric(stream) = value." head.
var scalarValueRe = regexp.MustCompile(`^(\w+\([^)]*\)(?: field=\S+)?) = [^ ]*\.`)

// markSentinels writes highlight tags as ** pairs.
var markSentinels = strings.NewReplacer("<mark>", "**", "</mark>", "**")

// dropSourceIdentity removes the source identity from fetch's metadata.
func dropSourceIdentity(_ *mcp.CallToolRequest, _ *callState, doc *adapter.Document, _ *result) {
	for _, k := range []string{"connection_id", "connector_key", "stream", "source"} {
		delete(doc.Metadata, k)
	}
}

// dropRequestedValues takes the requested fields' values out of a
// fetch(fields) document: what a renderer that projects after rendering
// the stream's text shows.
func dropRequestedValues(req *mcp.CallToolRequest, st *callState, doc *adapter.Document, _ *result) {
	data, _ := rsRecord(st)["data"].(map[string]any)
	for _, f := range fetchFields(req) {
		v := str(data[f])
		if v == "" {
			continue
		}
		drop := strings.NewReplacer(v, "", string([]rune(v)[:min(40, len([]rune(v)))]), "")
		doc.Title, doc.Text = drop.Replace(doc.Title), drop.Replace(doc.Text)
		for k, m := range doc.Metadata {
			if s, ok := m.(string); ok {
				doc.Metadata[k] = drop.Replace(s)
			}
		}
	}
}

var fieldPathRe = regexp.MustCompile(`"field_path":"[^"]*"`)

// continueAnotherField points a cut fetch text's continuation at the
// record's first other text field: a call that works, on another field.
func continueAnotherField(_ *mcp.CallToolRequest, st *callState, doc *adapter.Document, _ *result) {
	next, _ := doc.Metadata["text_continuation"].(map[string]any)
	args, _ := next["args"].(map[string]any)
	data, _ := rsRecord(st)["data"].(map[string]any)
	if args == nil {
		return
	}
	var other []string
	for k, v := range data {
		if _, ok := v.(string); ok && k != args["field_path"] {
			other = append(other, k)
		}
	}
	if len(other) == 0 {
		return
	}
	slices.Sort(other)
	args["field_path"] = other[0]
	doc.Text = fieldPathRe.ReplaceAllString(doc.Text, `"field_path":"`+other[0]+`"`)
}

// pathOnlyIDs reads only connection_id/stream:record_id ids: a legacy
// stream:record_id id is refused whatever connection_id says.
type pathOnlyIDs struct{ adapter.PathIDs }

func (p pathOnlyIDs) Parse(id, connectionID string) (adapter.RecordRef, error) {
	if head, _, _ := strings.Cut(id, ":"); !strings.HasPrefix(id, adapter.RecordURIPrefix) && !strings.Contains(head, "/") {
		return adapter.RecordRef{}, errors.New("id must be connection_id/stream:record_id")
	}
	return p.PathIDs.Parse(id, connectionID)
}

// cutPreviewsAt cuts a hit's snippet and evidence previews at n
// characters, ending in "…", wherever the cut falls.
func cutPreviewsAt(n int) func(res map[string]any) {
	cut := func(s string) string {
		if r := []rune(s); len(r) > n {
			return string(r[:n]) + "…"
		}
		return s
	}
	return func(res map[string]any) {
		if s, ok := res["snippet"].(string); ok {
			res["snippet"] = cut(s)
		}
		list, _ := res["evidence_excerpts"].([]any)
		for _, x := range list {
			if e, ok := x.(map[string]any); ok {
				e["preview_text"] = cut(str(e["preview_text"]))
			}
		}
	}
}

// repeatCursor shows, on a page reached with a cursor, that cursor again
// in place of the next one.
func repeatCursor(req *mcp.CallToolRequest, r *result) {
	var args struct {
		Cursor string `json:"cursor"`
	}
	_ = json.Unmarshal(req.Params.Arguments, &args)
	next := valueOf(r.structured(), "next_cursor")
	if args.Cursor == "" || next == "" {
		return
	}
	r.setText(strings.ReplaceAll(r.text(), next, args.Cursor))
	var sc any
	_ = decodeJSON([]byte(strings.ReplaceAll(string(mustJSON(r.StructuredContent)), next, args.Cursor)), &sc)
	r.StructuredContent = sc
}

// valueOf is the first string under key anywhere in v.
func valueOf(v any, key string) string {
	switch x := v.(type) {
	case map[string]any:
		if s, ok := x[key].(string); ok && s != "" {
			return s
		}
		for _, c := range x {
			if s := valueOf(c, key); s != "" {
				return s
			}
		}
	case []any:
		for _, c := range x {
			if s := valueOf(c, key); s != "" {
				return s
			}
		}
	}
	return ""
}

// textOfUnprojectedRead answers a projected query_records with its own
// structuredContent and the text of the same read without fields.
func textOfUnprojectedRead(ctx context.Context, req *mcp.CallToolRequest, next callNext) (*mcp.CallToolResult, error) {
	args := map[string]json.RawMessage{}
	if req.Params.Name != "query_records" || json.Unmarshal(req.Params.Arguments, &args) != nil || args["fields"] == nil {
		return next(ctx, req)
	}
	res, err := next(ctx, req)
	if err != nil || res.IsError {
		return res, err
	}
	delete(args, "fields")
	whole, err := next(ctx, withArgs(req, args))
	if err == nil && !whole.IsError {
		(&result{res}).setText((&result{whole}).text())
	}
	return res, nil
}

// firstSearchCursor keeps the next_cursor of the first search the adapter
// answers and shows it as every later new search's own.
func firstSearchCursor() func(*Seams) {
	var mu sync.Mutex
	var first string
	return withMiddleware(onResult("search", func(req *mcp.CallToolRequest, r *result) {
		var args struct {
			Cursor string `json:"cursor"`
		}
		_ = json.Unmarshal(req.Params.Arguments, &args)
		next := valueOf(r.structured(), "next_cursor")
		if args.Cursor != "" || next == "" || r.IsError {
			return
		}
		mu.Lock()
		if first == "" {
			first = next
		}
		kept := first
		mu.Unlock()
		r.setText(strings.ReplaceAll(r.text(), next, kept))
		var sc any
		_ = decodeJSON([]byte(strings.ReplaceAll(string(mustJSON(r.StructuredContent)), next, kept)), &sc)
		r.StructuredContent = sc
	}))
}

// fixtureConnRe is a connection id of mcpcheck's fixtures.
var fixtureConnRe = regexp.MustCompile(`\bcin_[A-Za-z0-9_]+`)

// creditFirstConnection names every connection in text as the first one
// it names.
func creditFirstConnection(text string) string {
	first := fixtureConnRe.FindString(text)
	if first == "" {
		return text
	}
	return fixtureConnRe.ReplaceAllString(text, first)
}

// cutFieldReadRe is the field of a cut field's read in query_records' text.
var cutFieldReadRe = regexp.MustCompile(`(\.\w+ truncated read_record_field args=\{"field_path":)"\w+"`)
