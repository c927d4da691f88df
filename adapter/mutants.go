package adapter

import (
	"fmt"
	"sort"
	"strings"
)

// A Mutant is a named single fault in the reference adapter. Each one exists
// to prove that the checks it names can fail; only tests and mcpcheck's hidden
// --mutant flag (MainWithMutants) reach them.
type Mutant string

// MutantInfo describes a mutant and the scenario ids that must catch it.
type MutantInfo struct {
	ID    Mutant
	Kills []string // scenario ids expected to fail against this mutant
	Doc   string
}

// The mutant catalogue. Ids are verb-first and say what they break.
const (
	DropInstructions          Mutant = "drop-instructions"
	OwnerAskInInstructions    Mutant = "ask-owner-token-in-instructions"
	BuryGuidancePast512       Mutant = "bury-guidance-past-512"
	DuplicateConnectionProse  Mutant = "duplicate-connection-prose"
	StripRoutingFromAggregate Mutant = "strip-routing-from-aggregate"
	PadDescriptions           Mutant = "pad-descriptions"
	ClaimHiddenStructured     Mutant = "claim-hidden-structured-content"
	AddToolListStreams        Mutant = "add-tool-list-streams"
	AddEventSubscriptionTool  Mutant = "add-tool-create-event-subscription"
	DropToolFetch             Mutant = "drop-tool-fetch"
	ExposeConnectorInstanceID Mutant = "expose-connector-instance-id"
	RequireConnectionID       Mutant = "require-connection-id"
	AdvertiseProfileFlag      Mutant = "advertise-profile-flag"
	DriftStdioSurface         Mutant = "drift-stdio-surface"

	DropExpandParam                 Mutant = "drop-expand-param"
	ExpandGateFailsClosed           Mutant = "expand-gate-fails-closed"
	SkipExpandGate                  Mutant = "skip-expand-gate"
	ExpandErrorWithoutSchemaPointer Mutant = "expand-error-without-schema-pointer"
	CacheExpandSchema               Mutant = "cache-expand-schema"
	KeepFieldDetailInIndex          Mutant = "keep-field-detail-in-index"
	DropStreamIndex                 Mutant = "drop-stream-index"
	NestSchemaData                  Mutant = "nest-schema-data"
	SummarizeFirstRowOnly           Mutant = "summarize-first-row-only"
	OmitScopeSupport                Mutant = "omit-scope-support"
	OmitRowSortAggregations         Mutant = "omit-row-sort-aggregations"
	DropSchemaConnectionID          Mutant = "drop-schema-connection-id"
	DropSchemaLegend                Mutant = "drop-schema-legend"
	FetchGrantWideFullSchema        Mutant = "fetch-grant-wide-full-schema"
	SendViewCompactWithFull         Mutant = "send-view-compact-with-full"
	DuplicateStreamList             Mutant = "duplicate-stream-list"

	AcceptUnknownArguments  Mutant = "accept-unknown-arguments"
	ForwardBareFilter       Mutant = "forward-bare-filter"
	ForwardBareExpandLimit  Mutant = "forward-bare-expand-limit"
	UntypedExpandLimitError Mutant = "untyped-expand-limit-error"

	ProbeChildrenForAmbiguity    Mutant = "probe-children-for-ambiguity"
	ListThirteenAmbiguityEntries Mutant = "list-13-ambiguity-entries"
	DropGrantIDFromAmbiguity     Mutant = "drop-grant-id-from-ambiguity"
	LeakProjectedFields          Mutant = "leak-projected-fields"
	HidePagingHandles            Mutant = "hide-paging-handles"
	RetryAfter401                Mutant = "retry-after-401"
	SwitchCredentialAfter401     Mutant = "switch-credential-after-401"
	EchoBearerInErrors           Mutant = "echo-bearer-in-errors"
	HideOtherCount               Mutant = "hide-other-count"
	UnboundedBuckets             Mutant = "unbounded-buckets"
	SkipGranularityGate          Mutant = "skip-granularity-gate"
	DescribeWithoutOtherCount    Mutant = "describe-aggregate-without-other-count"

	PerConnectionSearchLimit  Mutant = "per-connection-search-limit"
	DropSourceMix             Mutant = "drop-source-mix"
	TruncateSourceMix         Mutant = "truncate-source-mix"
	MiscountSourceMix         Mutant = "miscount-source-mix"
	StripClosingMarks         Mutant = "strip-closing-marks"
	SnippetAsTitle            Mutant = "snippet-as-title"
	TitleFromEmittedAt        Mutant = "title-from-emitted-at"
	DropSearchConnectionID    Mutant = "drop-search-connection-id"
	AddFetchDataKey           Mutant = "add-fetch-data-key"
	SilentCutFetchText        Mutant = "silent-cut-fetch-text"
	IgnoreFetchFields         Mutant = "ignore-fetch-fields"
	LeakUnrequestedToMetadata Mutant = "leak-unrequested-fields-to-metadata"
	HideFetchIDs              Mutant = "hide-fetch-ids"
	ForwardTraversalID        Mutant = "forward-traversal-id"

	GuessTitleByName          Mutant = "guess-title-by-name"
	InlineBase64Body          Mutant = "inline-base64-body"
	SilentCutRecordPreview    Mutant = "silent-cut-record-preview"
	NoJSONFieldWindows        Mutant = "no-json-field-windows"
	DropPreviewIDs            Mutant = "drop-preview-ids"
	StructuredOnlyMoreResults Mutant = "structured-only-omission-markers"

	SmallTextAsResourceLink Mutant = "small-text-as-resource-link"
	EmitFieldWindowURI      Mutant = "emit-field-window-uri"
	DropWindowArgs          Mutant = "drop-window-continuation-args"
	DropPreviousWindowArgs  Mutant = "drop-previous-window-args"
	OmitWindowStructure     Mutant = "omit-window-structure"
	HideEvidenceLines       Mutant = "hide-evidence-lines"
	EvidenceTermOnly        Mutant = "evidence-term-only"
	InventEvidence          Mutant = "invent-evidence"
	RotateEvidencePreviews  Mutant = "rotate-evidence-previews"
	EmitDeadRecordURI       Mutant = "emit-dead-record-uri"
	ResourceOnlyEvidence    Mutant = "resource-only-evidence"
	CLIOmitReadCommand      Mutant = "cli-omit-read-command"

	ChallengeWithoutMetadata  Mutant = "challenge-without-resource-metadata"
	AcceptOwnerBearer         Mutant = "accept-owner-bearer"
	ForwardRefusedBearer      Mutant = "forward-refused-bearer"
	DropRemoteClientSetup     Mutant = "drop-remote-client-setup"
	HonourProfileEnv          Mutant = "honour-profile-env"
	AdvertiseControlPlaneKind Mutant = "advertise-control-plane-kind"
	DropMCPEndpointHint       Mutant = "drop-mcp-endpoint-hint"
	DropLLMsCodexCommand      Mutant = "drop-llms-codex-command"
	ChallengeControlPlane     Mutant = "challenge-control-plane-bearer"
	OwnerInstructionOnConnect Mutant = "owner-instruction-on-connect"
	ProfileInMetadata         Mutant = "profile-in-metadata"

	UnboundedRecordText   Mutant = "unbounded-record-text"
	AdvertiseResultDetail Mutant = "advertise-result-detail"
)

var mutants = []MutantInfo{
	{DropInstructions, []string{"S001", "S004"}, "initialize carries no instructions"},
	{OwnerAskInInstructions, []string{"S001"}, "instructions ask the client to pass an owner bearer"},
	{BuryGuidancePast512, []string{"S001"}, "a long preamble pushes the usage pattern past character 512"},
	{DuplicateConnectionProse, []string{"S002", "S004"}, "every connection_id argument repeats a long recovery paragraph"},
	{StripRoutingFromAggregate, []string{"S003"}, "the aggregate description loses its endpoint and read-only statement"},
	{PadDescriptions, []string{"S004", "S016"}, "descriptions padded past the byte budget"},
	{ClaimHiddenStructured, []string{"S005"}, "query_records says structuredContent is hidden from the model"},
	{AddToolListStreams, []string{"S012", "S016"}, "a seventh tool, list_streams"},
	{AddEventSubscriptionTool, []string{"S012", "S016"}, "an event-subscription management tool"},
	{DropToolFetch, []string{"S012"}, "fetch is missing"},
	{ExposeConnectorInstanceID, []string{"S013"}, "query_records and fetch advertise connector_instance_id"},
	{RequireConnectionID, []string{"S013"}, "search requires connection_id"},
	{AdvertiseProfileFlag, []string{"S011"}, "stdio --help advertises a --profile selector"},
	{DriftStdioSurface, []string{"S011"}, "stdio serves a different tool set from hosted HTTP"},

	{DropExpandParam, []string{"S007"}, "query_records passes the expand gate but never sends expand to the RS"},
	{ExpandGateFailsClosed, []string{"S007"}, "the expand gate rejects when GET /v1/schema fails, instead of deferring to the RS"},
	{SkipExpandGate, []string{"S008"}, "unadvertised expand goes to the RS unchecked"},
	{ExpandErrorWithoutSchemaPointer, []string{"S008"}, "the invalid_expand message names expand_capabilities but not GET /v1/schema"},
	{CacheExpandSchema, []string{"S009"}, "the expand gate remembers the first schema it saw per stream"},
	{KeepFieldDetailInIndex, []string{"S017"}, "the global schema index keeps every row's field_capabilities"},
	{DropStreamIndex, []string{"S017"}, "past the detailed-row cap, stream names vanish from the text"},
	{NestSchemaData, []string{"S017", "S022"}, "the schema document is nested at structuredContent.data.data"},
	{SummarizeFirstRowOnly, []string{"S018"}, "schema(stream) summarises fields for the first matching row only"},
	{OmitScopeSupport, []string{"S019"}, "scoped schema text omits sort, projection, count, expand and search support"},
	{OmitRowSortAggregations, []string{"S019", "S020"}, "scoped schema rows drop sort= and aggregations=, leaving only the legend to mention them"},
	{DropSchemaConnectionID, []string{"S019"}, "schema ignores connection_id, so a shared stream is not narrowed"},
	{DropSchemaLegend, []string{"S020"}, "scoped schema text uses the flag grammar without its legend"},
	{FetchGrantWideFullSchema, []string{"S021"}, "detail=full without stream fetches and returns the grant-wide schema"},
	{SendViewCompactWithFull, []string{"S022"}, "detail=full also sends view=compact, so the raw JSON Schema is lost"},
	{DuplicateStreamList, []string{"S041"}, "the schema document repeats its rows in a top-level streams list"},

	{RetryAfter401, []string{"S014"}, "after an RS 401 the adapter tries the same call again"},
	{SwitchCredentialAfter401, []string{"S014"}, "after an RS 401 the adapter sends later calls with another (owner-style) credential"},
	{EchoBearerInErrors, []string{"S014"}, "error text quotes the refused bearer"},
	{HidePagingHandles, []string{"S023"}, "query_records text drops next_cursor, next_changes_since and count"},
	{LeakProjectedFields, []string{"S031"}, "query_records(fields) neither forwards fields nor narrows records"},
	{ProbeChildrenForAmbiguity, []string{"S032"}, "the ambiguity error is built after reading every connection's records"},
	{ListThirteenAmbiguityEntries, []string{"S032"}, "the ambiguity error lists 13 connections"},
	{DropGrantIDFromAmbiguity, []string{"S032"}, "ambiguity entries lack grant_id"},
	{ForwardBareFilter, []string{"U01"}, "a query-string filter is forwarded as a bare filter="},
	{ForwardBareExpandLimit, []string{"U02"}, "a string expand_limit is forwarded as a bare expand_limit="},
	{UntypedExpandLimitError, []string{"U02"}, "expand_limit rejections are bare text naming expand_limit, with no error code"},
	{AcceptUnknownArguments, []string{"U03"}, "undeclared arguments are ignored instead of rejected"},
	{HideOtherCount, []string{"U09"}, "grouped aggregate text drops other_count"},
	{UnboundedBuckets, []string{"U09"}, "grouped aggregate text previews every group, with no more_groups"},
	{SkipGranularityGate, []string{"U09"}, "group_by_time without granularity (or the reverse) goes to the RS unchecked"},
	{DescribeWithoutOtherCount, []string{"U09"}, "the aggregate description no longer names other_count"},

	{PerConnectionSearchLimit, []string{"S024"}, "search asks the RS for 100 hits and applies limit per connection, not to the merged hits"},
	{DropSourceMix, []string{"S025"}, "search text omits the source mix"},
	{TruncateSourceMix, []string{"S025"}, "the source mix names eight connections, then more:N"},
	{MiscountSourceMix, []string{"S025"}, "the source mix counts hits of every connection after the first twice"},
	{StripClosingMarks, []string{"S026"}, "search snippets lose their </mark> tags"},
	{SnippetAsTitle, []string{"S027"}, "a hit without a source title is titled by its snippet"},
	{TitleFromEmittedAt, []string{"S027"}, "fallback titles use emitted_at even when an authored time exists"},
	{DropSearchConnectionID, []string{"S028"}, "search ignores connection_id"},
	{AddFetchDataKey, []string{"S029"}, "fetch adds the canonical record under structuredContent.data"},
	{SilentCutFetchText, []string{"S029"}, "fetch cuts a 60,000-character text to 16,384 without saying so"},
	{IgnoreFetchFields, []string{"S030"}, "fetch(fields) neither forwards nor applies the projection"},
	{LeakUnrequestedToMetadata, []string{"S030"}, "fetch(fields) copies fields the RS added beyond the projection into metadata"},
	{HideFetchIDs, []string{"S034"}, "search text shows no fetchable ids"},
	{ForwardTraversalID, []string{"U05"}, "fetch ids are split without rejecting traversal"},

	{DropPreviewIDs, []string{"S033"}, "cut record previews carry no id and no continuation"},
	{StructuredOnlyMoreResults, []string{"S033"}, "more_results, more_records and more_fields point only at structuredContent"},
	{ResourceOnlyEvidence, []string{"S035"}, "search evidence is reachable only through a pdpp://field-window/ resource"},
	{SmallTextAsResourceLink, []string{"S036", "S049"}, "a small field comes back as a resource_link only"},
	{GuessTitleByName, []string{"S037"}, "fetch promotes fields named like a title or text, whatever their declared role"},
	{InlineBase64Body, []string{"S038"}, "record previews inline base64 bodies"},
	{HideEvidenceLines, []string{"S043"}, "search text drops the evidence excerpts"},
	{EvidenceTermOnly, []string{"S044"}, "evidence previews collapse to the highlighted term"},
	{InventEvidence, []string{"S045"}, "metadata-only hits get an invented body evidence window"},
	{RotateEvidencePreviews, []string{"S045"}, "each evidence preview shows another hit's text"},
	{EmitDeadRecordURI, []string{"S046"}, "search shows pdpp://record/ URIs that fetch rejects"},
	{EmitFieldWindowURI, []string{"S047", "S048"}, "read_record_field shows a pdpp://field-window/ URI nothing can read"},
	{DropWindowArgs, []string{"S048"}, "incomplete windows show no next arguments"},
	{DropPreviousWindowArgs, []string{"S048"}, "a later window shows no previous arguments"},
	{OmitWindowStructure, []string{"S049"}, "the window in structuredContent lacks total_chars and complete"},
	{SilentCutRecordPreview, []string{"S050"}, "a large text in a record preview is cut with no flag and no continuation"},
	{NoJSONFieldWindows, []string{"S050"}, "read_record_field refuses a JSON field as not text, so a large one is never readable in full"},
	{CLIOmitReadCommand, []string{"S052"}, "pdpp-mcp search prints evidence without the read-field command"},

	{ChallengeWithoutMetadata, []string{"U13"}, "401 answers carry no WWW-Authenticate resource_metadata challenge"},
	{AcceptOwnerBearer, []string{"S015"}, "the hosted endpoint serves an owner bearer"},
	{AdvertiseControlPlaneKind, []string{"S039"}, "the MCP metadata lists control_plane among its token kinds"},
	{DropMCPEndpointHint, []string{"S039"}, "the MCP metadata names no MCP endpoint"},
	{HonourProfileEnv, []string{"S011"}, "stdio started with PDPP_MCP_PROFILE=full serves an extra event-subscription tool"},
	{DropRemoteClientSetup, []string{"S040"}, "the setup page drops the ChatGPT and other remote clients section"},
	{DropLLMsCodexCommand, []string{"S040"}, "/llms.txt omits the codex mcp add command"},
	{ChallengeControlPlane, []string{"S015"}, "a control-plane bearer the RS refuses gets a 401 challenge instead of 403"},
	{ForwardRefusedBearer, []string{"S015", "U13"}, "the hosted endpoint answers 401/403 but still runs the refused request against the RS"},
	{OwnerInstructionOnConnect, []string{"S010", "S040"}, "the setup page tells the user to paste an owner bearer"},
	{ProfileInMetadata, []string{"S039"}, "the MCP metadata advertises core/events/full profiles"},
	{UnboundedRecordText, []string{"S006"}, "query_records text previews whole records, unbudgeted"},
	{AdvertiseResultDetail, []string{"S006"}, "query_records grows an ad-hoc result_detail argument"},
}

// Mutants returns the catalogue, sorted by id.
func Mutants() []MutantInfo {
	out := append([]MutantInfo(nil), mutants...)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// ParseMutant validates a mutant id. The empty string means no mutant.
func ParseMutant(s string) (Mutant, error) {
	if s == "" {
		return "", nil
	}
	for _, m := range mutants {
		if string(m.ID) == s {
			return m.ID, nil
		}
	}
	ids := make([]string, len(mutants))
	for i, m := range mutants {
		ids[i] = string(m.ID)
	}
	sort.Strings(ids)
	return "", fmt.Errorf("unknown mutant %q (known: %s)", s, strings.Join(ids, ", "))
}
