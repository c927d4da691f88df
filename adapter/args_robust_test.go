package adapter_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// errorObject decodes the typed error of an isError result.
func errorObject(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	if !res.IsError {
		t.Fatalf("not an error: %s", text(res))
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(text(res)), &obj); err != nil {
		t.Fatalf("error text is not a JSON object: %q", text(res))
	}
	return obj
}

// JSON Schema counts 1.0 and 1e2 as integers; so must the adapter.
func TestIntegralNumbersAreIntegers(t *testing.T) {
	cs, rs := session(t)
	ctx := context.Background()
	for _, tc := range []struct{ tool, args, key, want string }{
		{"query_records", `{"stream":"messages","connection_id":"cin_work","limit":3.0}`, "limit", "3"},
		{"query_records", `{"stream":"messages","connection_id":"cin_work","expand":["attachments"],"expand_limit":{"attachments":2.0}}`, "expand_limit[attachments]", "2"},
		{"read_record_field", `{"id":"cin_work/messages:m007","field_path":"body","limit_chars":1e2}`, "limit_chars", "100"},
		{"read_record_field", `{"id":"cin_work/messages:m007","field_path":"body","offset_chars":10.00}`, "offset_chars", "10"},
	} {
		t.Run(tc.key, func(t *testing.T) {
			rs.ResetRequests()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: json.RawMessage(tc.args)})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError {
				t.Fatalf("%s rejected: %s", tc.args, text(res))
			}
			reqs := rs.Requests()
			if got := reqs[len(reqs)-1].Query.Get(tc.key); got != tc.want {
				t.Errorf("RS got %s=%q, want %q", tc.key, got, tc.want)
			}
		})
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_record_field",
		Arguments: json.RawMessage(`{"id":"cin_work/messages:m007","field_path":"body","offset_chars":1e300}`)})
	if err != nil {
		t.Fatal(err)
	}
	if e := errorObject(t, res); e["code"] != "invalid_arguments" || e["param"] != "offset_chars" {
		t.Errorf("offset_chars 1e300: %v, want invalid_arguments naming offset_chars", e)
	}
}

// An argument error is one line even when the caller's names or values hold
// line breaks, and an empty name is shown, not blank.
func TestArgumentErrorsAreOneLine(t *testing.T) {
	cs, _ := session(t)
	for _, args := range []string{`{"a\nb":1}`, `{"":1}`, `{"detail":"x\r\ny"}`} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "schema", Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatal(err)
		}
		msg, _ := errorObject(t, res)["message"].(string)
		if msg == "" || strings.ContainsAny(msg, "\r\n") || strings.Contains(msg, "argument(s) ;") {
			t.Errorf("%s: message %q", args, msg)
		}
	}
}
