package adapter

// The RS bodies the tools read, as far as the adapter reads them.

import json "github.com/segmentio/encoding/json"

type record struct {
	Object       string          `json:"object"`
	ID           string          `json:"id"`
	Stream       string          `json:"stream"`
	Data         json.RawMessage `json:"data"`
	EmittedAt    string          `json:"emitted_at"`
	ConnectionID string          `json:"connection_id"`
	ConnectorKey string          `json:"connector_key"`
	DisplayName  string          `json:"display_name"`
}

type recordList struct {
	Data             []json.RawMessage `json:"data"`
	HasMore          bool              `json:"has_more"`
	NextCursor       string            `json:"next_cursor"`
	NextChangesSince string            `json:"next_changes_since"`
	Meta             struct {
		Count struct {
			Kind  string          `json:"kind"`
			Value json.RawMessage `json:"value"`
		} `json:"count"`
		Warnings []struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"warnings"`
	} `json:"meta"`
}

type aggregation struct {
	Metric      string          `json:"metric"`
	Field       *string         `json:"field"`
	GroupBy     *string         `json:"group_by"`
	GroupByTime *string         `json:"group_by_time"`
	Granularity *string         `json:"granularity"`
	TimeZone    *string         `json:"time_zone"`
	Value       json.RawMessage `json:"value"`
	Groups      []struct {
		Key   json.RawMessage `json:"key"`
		Count json.RawMessage `json:"count"`
	} `json:"groups"`
	OtherCount *json.Number `json:"other_count"`
}

type searchHit struct {
	Stream       string          `json:"stream"`
	RecordKey    string          `json:"record_key"`
	ConnectionID string          `json:"connection_id"`
	ConnectorID  string          `json:"connector_id"`
	ConnectorKey string          `json:"connector_key"`
	DisplayName  string          `json:"display_name"`
	Title        string          `json:"title"`
	EmittedAt    string          `json:"emitted_at"`
	AuthoredAt   string          `json:"authored_at"`
	RecordURL    string          `json:"record_url"`
	Snippet      json.RawMessage `json:"snippet"`
	Evidence     []struct {
		FieldPath   string `json:"field_path"`
		PreviewText string `json:"preview_text"`
		Truncated   bool   `json:"truncated"`
	} `json:"evidence_excerpts"`
}

type fieldWindow struct {
	Stream   string `json:"stream"`
	RecordID string `json:"record_id"`
	Field    struct {
		Path string `json:"path"`
		Type string `json:"type"`
	} `json:"field"`
	Window struct {
		Text                string `json:"text"`
		TotalChars          int    `json:"total_chars"`
		StartChars          int    `json:"start_chars"`
		EndChars            int    `json:"end_chars"`
		LimitChars          int    `json:"limit_chars"`
		Complete            bool   `json:"complete"`
		HasMore             bool   `json:"has_more"`
		MatchStartChars     *int   `json:"match_start_chars"`
		MatchEndChars       *int   `json:"match_end_chars"`
		NextOffsetChars     *int   `json:"next_offset_chars"`
		PreviousOffsetChars *int   `json:"previous_offset_chars"`
	} `json:"window"`
}
