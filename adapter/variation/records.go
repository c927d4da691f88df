package variation

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Variations of query_records and aggregate: what their text and
// structuredContent show of a page.

// onRecordsText rewrites query_records' text.
func onRecordsText(f func(string) string) func(*Seams) {
	return withMiddleware(onResult("query_records", func(_ *mcp.CallToolRequest, r *result) {
		if !r.IsError {
			r.setText(f(r.text()))
		}
	}))
}
