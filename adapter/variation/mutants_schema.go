package variation

import (
	"net/http"
	"net/url"
	"strings"
)

// schemaMutants break schema discovery and typed arguments: S017–S022, S041, U01, U02.
var schemaMutants = []Variation{
	{ID: "keep-field-detail-in-index", Kills: []string{"S017.1", "S017.4"}, Doc: "the global schema index keeps every row's field_capabilities",
		Apply: keepFieldDetailInIndex()},
	{ID: "drop-index-connection", Kills: []string{"S017.1"}, Doc: "the global schema index lists a stream several connections serve without its last connection",
		Apply: onSchemaResult(dropIndexConnection)},
	{ID: "index-text-without-streams", Kills: []string{"S017.2", "S017.3"}, Doc: "the global schema text names no stream, leaving them to structuredContent",
		Apply: onSchemaResult(func(scoped bool, r *result) {
			if !scoped {
				r.setText("PDPP schema: the granted streams are listed in structuredContent.data.")
			}
		})},
	{ID: "drop-stream-index", Kills: []string{"S017.3"}, Doc: "past the detailed-row cap, stream names vanish from the text",
		Apply: onSchemaResult(func(_ bool, r *result) { r.setText(dropLines(r.text(), "stream_index ")) })},
	{ID: "misgroup-index-stream", Kills: []string{"S017.3"}, Doc: "the global schema text lists a stream that one connector has under another connector's key",
		Apply: onSchemaResult(misgroupIndexRow)},
	{ID: "describe-every-index-row", Kills: []string{"S017.4"}, Doc: "every row of the global index repeats a 600-character description",
		Apply: onSchemaResult(func(scoped bool, r *result) {
			if !scoped {
				padRows("name", 600)(scoped, r)
			}
		})},
	{ID: "nest-schema-data", Kills: []string{"S017.1", "S022.5"}, Doc: "the schema document is nested at structuredContent.data.data",
		Apply: onSchemaResult(func(_ bool, r *result) {
			sc := r.structured()
			sc["data"] = map[string]any{"data": sc["data"]}
			r.setStructured(sc)
		})},
	{ID: "summarize-first-row-only", Kills: []string{"S018.1", "S018.2"}, Doc: "schema(stream) summarises fields for the first matching row only",
		Apply: onSchemaResult(summarizeFirstRowOnly)},
	{ID: "omit-scope-support", Kills: []string{"S018.2", "S019.2", "S020.2"}, Doc: "scoped schema text omits sort, projection, count, expand and search support",
		Apply: grammar(rowGrammar{dropFrom: "sort="})},
	{ID: "omit-row-sort-aggregations", Kills: []string{"S018.2", "S019.2", "S020.2"}, Doc: "scoped schema rows drop sort= and aggregations=, leaving only the legend to mention them",
		Apply: grammar(rowGrammar{drop: func(seg string) bool {
			return strings.HasPrefix(seg, "sort=") || strings.HasPrefix(seg, "aggregations=")
		}})},
	{ID: "drop-schema-connection-id", Kills: []string{"S019.1", "S022.1"}, Doc: "schema ignores connection_id, so a shared stream is not narrowed",
		Apply: all(tracked(), onQuery(inTool("schema", pathIs("/v1/schema")), func(_ *http.Request, q url.Values) { q.Del("connection_id") }))},
	{ID: "widen-scoped-connections", Kills: []string{"S019.1"}, Doc: "schema(stream, connection_id) keeps the row to that connection but lists every connection of the stream at connector level and in text",
		Apply: widenScopedConnections()},
	{ID: "legend-without-range-flag", Kills: []string{"S020.1"}, Doc: "the scoped schema legend does not explain the range-filter flag r, which only some streams use",
		Apply: grammar(rowGrammar{legendEdit: func(line string) string { return rangeLegendRe.ReplaceAllString(line, "") }})},
	{ID: "drop-schema-legend", Kills: []string{"S020.1"}, Doc: "scoped schema text uses the flag grammar without its legend",
		Apply: grammar(rowGrammar{dropLegend: true})},
	{ID: "fetch-grant-wide-full-schema", Kills: []string{"S021.1"}, Doc: "detail=full without stream fetches and returns the grant-wide schema",
		Apply: grantWideFullSchema()},
	{ID: "relay-rs-full-schema-refusal", Kills: []string{"S021.1", "S021.2"}, Doc: "schema(detail: \"full\") without stream is forwarded to the RS, whose refusal (naming its REST endpoint) is relayed",
		Apply: relayFullSchemaRefusal()},
	{ID: "full-schema-refusal-without-retry", Kills: []string{"S021.2"}, Doc: "schema(detail: \"full\") without stream is refused without saying how to retry",
		Apply: onError(func(e map[string]any) {
			if e["param"] == "detail" {
				e["message"] = "This detail level is not available here."
			}
		})},
	{ID: "send-view-compact-with-full", Kills: []string{"S022.1", "S022.2"}, Doc: "detail=full also sends view=compact, so the raw JSON Schema is lost and a shared stream is not disambiguated",
		Apply: onQuery(pathIs("/v1/schema"), func(_ *http.Request, q url.Values) {
			if q.Get("detail") == "full" {
				q.Set("view", "compact")
			}
		})},
	{ID: "full-ambiguity-lists-foreign-connection", Kills: []string{"S022.2"}, Doc: "the disambiguation error of an ambiguous schema(stream, detail: \"full\") also lists cin_github, a connection that does not serve the stream",
		Apply: onError(func(e map[string]any) {
			if list, ok := e["available_connections"].([]any); ok && e["code"] != "ambiguous_connection" {
				e["available_connections"] = append(list, map[string]any{"connection_id": "cin_github", "connector_key": "github"})
			}
		})},
	{ID: "pick-first-source-full", Kills: []string{"S022.2"}, Doc: "an ambiguous schema(stream, detail: \"full\") answers with the first connection's exhaustive schema instead of asking",
		Apply: pickFirstSourceFull()},
	{ID: "merge-other-sources-full", Kills: []string{"S022.3"}, Doc: "schema(stream, connection_id, detail: \"full\") also holds the stream's other connections",
		Apply: mergeOtherSourcesFull()},
	{ID: "describe-every-full-field", Kills: []string{"S022.4"}, Doc: "the exhaustive schema repeats an 8,000-character description on every field",
		Apply: onSchemaResult(func(scoped bool, r *result) {
			if scoped {
				padRows("type", 8000)(scoped, r)
			}
		})},
	{ID: "duplicate-stream-list", Kills: []string{"S041.1", "S022.6"}, Doc: "the schema document repeats its rows in a top-level streams list",
		Apply: onSchemaResult(func(_ bool, r *result) {
			sc := r.structured()
			if doc, ok := sc["data"].(map[string]any); ok {
				doc["streams"] = repeatedRowList(doc)
				r.setStructured(sc)
			}
		})},
	{ID: "repeat-connector-connections", Kills: []string{"S041.2"}, Doc: "every connector-nested stream repeats its connector's granted_connections",
		Apply: onSchemaResult(repeatConnectorConnections)},
	{ID: "encode-filter-as-json", Kills: []string{"U01.1"}, Doc: "query_records sends its object filter to the RS as one bare filter= of JSON",
		Apply: all(tracked(), encodeFilterAsJSON())},
	{ID: "forward-bare-filter", Kills: []string{"U01.2"}, Doc: "a query-string filter is forwarded as a bare filter=",
		Apply: forwardBare([]string{"query_records", "aggregate"}, "filter", jsonString)},
	{ID: "drop-expand-limit-cap", Kills: []string{"U02.1"}, Doc: "query_records forwards expand without its expand_limit[relation]",
		Apply: dropExpandLimitCap()},
	{ID: "forward-bare-expand-limit", Kills: []string{"U02.2"}, Doc: "a string expand_limit is forwarded as a bare expand_limit=",
		Apply: forwardBare([]string{"query_records"}, "expand_limit", jsonString)},
	{ID: "untyped-expand-limit-error", Kills: []string{"U02.2"}, Doc: "expand_limit rejections are a vague text: no code, no argument named",
		Apply: untypedExpandLimitError()},
}
