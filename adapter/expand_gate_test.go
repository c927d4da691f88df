package adapter_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// Seed 000 gates expand_limit like expand: on a stream that advertises no
// expand_capabilities, expand_limit alone is rejected before the records
// endpoint.
func TestExpandGateCoversExpandLimit(t *testing.T) {
	records := "GET =~^" + fakers.MockBaseURL + `/v1/streams/orders/records`
	cs, mt := gateSession(t, `{"streams":[{"name":"orders","expand_capabilities":[]}]}`, 200)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "query_records",
		Arguments: map[string]any{"stream": "orders", "expand_limit": map[string]any{"items": 2}}})
	if err != nil {
		t.Fatal(err)
	}
	if calls := mt.GetCallCountInfo()[records]; !res.IsError || !strings.Contains(text(res), "invalid_expand") || !strings.Contains(text(res), "orders") || calls != 0 {
		t.Errorf("want invalid_expand naming orders and no records call; got %d calls: %s", calls, text(res))
	}
}
