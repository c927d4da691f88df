package variation

import (
	"net/http"
	"net/url"
	"strings"
)

// schemaMutants break schema discovery and typed arguments: S017–S022, S041, U01, U02.
var schemaMutants = []Variation{
	{ID: "keep-field-detail-in-index", Kills: []string{"S017"}, Doc: "the global schema index keeps every row's field_capabilities",
		Apply: keepFieldDetailInIndex()},
	{ID: "drop-stream-index", Kills: []string{"S017"}, Doc: "past the detailed-row cap, stream names vanish from the text",
		Apply: onSchemaResult(func(_ bool, r *result) { r.setText(dropLines(r.text(), "stream_index ")) })},
	{ID: "nest-schema-data", Kills: []string{"S017", "S022"}, Doc: "the schema document is nested at structuredContent.data.data",
		Apply: onSchemaResult(func(_ bool, r *result) {
			sc := r.structured()
			sc["data"] = map[string]any{"data": sc["data"]}
			r.setStructured(sc)
		})},
	{ID: "summarize-first-row-only", Kills: []string{"S018"}, Doc: "schema(stream) summarises fields for the first matching row only",
		Apply: onSchemaResult(summarizeFirstRowOnly)},
	{ID: "omit-scope-support", Kills: []string{"S019"}, Doc: "scoped schema text omits sort, projection, count, expand and search support",
		Apply: grammar(rowGrammar{dropFrom: "sort="})},
	{ID: "omit-row-sort-aggregations", Kills: []string{"S019", "S020"}, Doc: "scoped schema rows drop sort= and aggregations=, leaving only the legend to mention them",
		Apply: grammar(rowGrammar{drop: func(seg string) bool {
			return strings.HasPrefix(seg, "sort=") || strings.HasPrefix(seg, "aggregations=")
		}})},
	{ID: "drop-schema-connection-id", Kills: []string{"S019"}, Doc: "schema ignores connection_id, so a shared stream is not narrowed",
		Apply: all(tracked(), onQuery(inTool("schema", pathIs("/v1/schema")), func(_ *http.Request, q url.Values) { q.Del("connection_id") }))},
	{ID: "drop-schema-legend", Kills: []string{"S020"}, Doc: "scoped schema text uses the flag grammar without its legend",
		Apply: grammar(rowGrammar{dropLegend: true})},
	{ID: "fetch-grant-wide-full-schema", Kills: []string{"S021"}, Doc: "detail=full without stream fetches and returns the grant-wide schema",
		Apply: grantWideFullSchema()},
	{ID: "send-view-compact-with-full", Kills: []string{"S022"}, Doc: "detail=full also sends view=compact, so the raw JSON Schema is lost",
		Apply: onQuery(pathIs("/v1/schema"), func(_ *http.Request, q url.Values) {
			if q.Get("detail") == "full" {
				q.Set("view", "compact")
			}
		})},
	{ID: "duplicate-stream-list", Kills: []string{"S041"}, Doc: "the schema document repeats its rows in a top-level streams list",
		Apply: onSchemaResult(func(_ bool, r *result) {
			sc := r.structured()
			if doc, ok := sc["data"].(map[string]any); ok {
				doc["streams"] = stubRows(doc)
				r.setStructured(sc)
			}
		})},
	{ID: "forward-bare-filter", Kills: []string{"U01"}, Doc: "a query-string filter is forwarded as a bare filter=",
		Apply: forwardBare([]string{"query_records", "aggregate"}, "filter", jsonString)},
	{ID: "forward-bare-expand-limit", Kills: []string{"U02"}, Doc: "a string expand_limit is forwarded as a bare expand_limit=",
		Apply: forwardBare([]string{"query_records"}, "expand_limit", jsonString)},
	{ID: "untyped-expand-limit-error", Kills: []string{"U02"}, Doc: "expand_limit rejections are bare text naming expand_limit, with no error code",
		Apply: untypedExpandLimitError()},
}
