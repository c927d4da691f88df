package variation

import (
	"context"
	"math"
	"net/http"
	"net/url"
	"strings"

	"github.com/pdpp-connect/mcpcheck/adapter"
	json "github.com/segmentio/encoding/json"
)

// readsMutants break query_records, aggregate, search and fetch: S023–S034, U05, U09.
var readsMutants = []Variation{
	{ID: "hide-paging-handles", Kills: []string{"S023"}, Doc: "query_records text drops next_cursor, next_changes_since and count",
		Apply: onRecordsText(hidePagingHandles)},
	{ID: "leak-projected-fields", Kills: []string{"S031"}, Doc: "query_records(fields) neither forwards fields nor narrows records",
		Apply: withMiddleware(onArgs("query_records", func(_ context.Context, args map[string]json.RawMessage) { delete(args, "fields") }))},
	{ID: "probe-children-for-ambiguity", Kills: []string{"S032"}, Doc: "the ambiguity error is built after reading every connection's records",
		Apply: probeChildren()},
	{ID: "list-13-ambiguity-entries", Kills: []string{"S032"}, Doc: "the ambiguity error lists 13 connections",
		Apply: tune(func(t *adapter.Tuning) { t.AmbiguityListLimit = 13 })},
	{ID: "drop-grant-id-from-ambiguity", Kills: []string{"S032"}, Doc: "ambiguity entries lack grant_id",
		Apply: ambiguity(func(entry map[string]any) { delete(entry, "grant_id") })},
	{ID: "hide-other-count", Kills: []string{"U09"}, Doc: "grouped aggregate text drops other_count",
		Apply: onAggregateText(hideOtherCount)},
	{ID: "unbounded-buckets", Kills: []string{"U09"}, Doc: "grouped aggregate text previews every group, with no more_groups",
		Apply: tune(func(t *adapter.Tuning) { t.AggregateGroups = math.MaxInt32 })},
	{ID: "skip-granularity-gate", Kills: []string{"U09"}, Doc: "group_by_time without granularity (or the reverse) goes to the RS unchecked",
		Apply: skipGranularityGate()},
	{ID: "describe-aggregate-without-other-count", Kills: []string{"U09"}, Doc: "the aggregate description no longer names other_count",
		Apply: describe("aggregate", func(d string) string {
			return strings.Replace(d, " other_count counts records in groups past limit.", "", 1)
		})},
	{ID: "per-connection-search-limit", Kills: []string{"S024"}, Doc: "search asks the RS for 100 hits and applies limit per connection, not to the merged hits",
		Apply: perConnectionSearchLimit()},
	{ID: "drop-source-mix", Kills: []string{"S025"}, Doc: "search text omits the source mix",
		Apply: onSearchText(dropSourceMix)},
	{ID: "truncate-source-mix", Kills: []string{"S025"}, Doc: "the source mix names eight connections, then more:N",
		Apply: tune(func(t *adapter.Tuning) { t.SourceMixCap = 8 })},
	{ID: "miscount-source-mix", Kills: []string{"S025"}, Doc: "the source mix counts hits of every connection after the first twice",
		Apply: onSearchText(miscountSourceMix)},
	{ID: "strip-closing-marks", Kills: []string{"S026"}, Doc: "search snippets lose their </mark> tags",
		Apply: onSearchResults(func(res map[string]any) {
			if s, ok := res["snippet"].(string); ok {
				res["snippet"] = strings.ReplaceAll(s, "</mark>", "")
			}
		})},
	{ID: "cut-through-mark-tag", Kills: []string{"S026.1"}, Doc: "search cuts snippets and evidence previews at 100 characters, through any highlight tag there",
		Apply: onSearchResults(cutPreviewsAt(100))},
	{ID: "snippet-as-title", Kills: []string{"S027"}, Doc: "a hit without a source title is titled by its snippet",
		Apply: onHits(snippetAsTitle)},
	{ID: "title-from-emitted-at", Kills: []string{"S027"}, Doc: "fallback titles use emitted_at even when an authored time exists",
		Apply: onHits(titleFromEmittedAt)},
	{ID: "drop-search-connection-id", Kills: []string{"S028"}, Doc: "search ignores connection_id",
		Apply: onQuery(pathIs("/v1/search"), func(_ *http.Request, q url.Values) { q.Del("connection_id") })},
	{ID: "add-fetch-data-key", Kills: []string{"S029"}, Doc: "fetch adds the canonical record under structuredContent.data",
		Apply: onFetch(addFetchDataKey)},
	{ID: "silent-cut-fetch-text", Kills: []string{"S029"}, Doc: "fetch cuts a 60,000-character text to 16,384 without saying so",
		Apply: onFetch(silentCutFetchText)},
	{ID: "ignore-fetch-fields", Kills: []string{"S030"}, Doc: "fetch(fields) neither forwards nor applies the projection",
		Apply: withMiddleware(onArgs("fetch", func(_ context.Context, args map[string]json.RawMessage) { delete(args, "fields") }))},
	{ID: "leak-unrequested-fields-to-metadata", Kills: []string{"S030"}, Doc: "fetch(fields) copies fields the RS added beyond the projection into metadata",
		Apply: onFetch(leakUnrequestedFields)},
	{ID: "hide-fetch-ids", Kills: []string{"S034"}, Doc: "search text shows no fetchable ids",
		Apply: onSearchText(hideFetchIDs)},
	{ID: "forward-traversal-id", Kills: []string{"U05"}, Doc: "fetch ids are split without rejecting traversal",
		Apply: tune(func(t *adapter.Tuning) { t.IDs = laxIDs{} })},
	{ID: "drop-preview-ids", Kills: []string{"S033"}, Doc: "cut record previews carry no id and no continuation",
		Apply: onRecordsText(dropPreviewIDs)},
	{ID: "structured-only-omission-markers", Kills: []string{"S033"}, Doc: "more_results, more_records and more_fields point only at structuredContent",
		Apply: structuredOnlyOmissions()},
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
