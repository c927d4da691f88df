package variation

import (
	"context"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/adapter"
	json "github.com/segmentio/encoding/json"
)

// Variations of the expand gate's forwarding, of the credentials the RS
// sees, of the setup page's order, and of declared output schemas.

// gateIgnoresExpandLimit lets query_records' expand_limit, sent without
// expand, past the gate: the adapter never sees it, and the call's record
// reads carry it to the RS.
func gateIgnoresExpandLimit() func(*Seams) {
	return tracked(onArgs("query_records", func(ctx context.Context, args map[string]json.RawMessage) {
		if _, expand := args["expand"]; expand || args["expand_limit"] == nil {
			return
		}
		var limits map[string]json.RawMessage
		if json.Unmarshal(args["expand_limit"], &limits) != nil {
			return
		}
		delete(args, "expand_limit")
		st := callOf(ctx)
		st.mu.Lock()
		defer st.mu.Unlock()
		for rel, n := range limits {
			st.add.Set("expand_limit["+rel+"]", string(n))
		}
	}))
}

// dropExpandedRelations takes the expanded relations out of the records
// query_records returns: the RS's answer no longer reaches the client as
// it was.
func dropExpandedRelations() func(*Seams) {
	return withMiddleware(onResult("query_records", func(req *mcp.CallToolRequest, r *result) {
		sc := r.structured()
		body, _ := sc["data"].(map[string]any)
		recs, _ := body["data"].([]any)
		if r.IsError || !strings.Contains(string(req.Params.Arguments), `"expand"`) || len(recs) == 0 {
			return
		}
		for _, rec := range recs {
			if m, ok := rec.(map[string]any); ok {
				delete(m, "expanded")
			}
		}
		r.setStructured(sc)
	}))
}

// serviceCredential is the static credential sideReadWithServiceCredential
// reads with: not the caller's grant-scoped bearer.
const serviceCredential = "pdpp-mcp-service-credential"

// sideReadWithServiceCredential sends, beside every aggregate read, a copy
// made with a service credential of the adapter's own, and ignores its
// answer: a read outside the caller's grant.
func sideReadWithServiceCredential() func(*Seams) {
	return withRS(func(next http.RoundTripper) http.RoundTripper {
		return roundTrip(func(r *http.Request) (*http.Response, error) {
			if strings.HasSuffix(rsPath(r), "/aggregate") {
				side := r.Clone(r.Context())
				side.Header.Set("Authorization", "Bearer "+serviceCredential)
				if resp, err := next.RoundTrip(side); err == nil {
					readBody(resp)
				}
			}
			return next.RoundTrip(r)
		})
	})
}

// advancedSetupFirst puts an advanced variant on the setup page before
// the recommended path.
func advancedSetupFirst() func(*Seams) {
	return onPage(adapter.SetupPath, func(page string) string {
		return strings.Replace(page, "<p>This is your MCP server URL.",
			"<h2>Advanced setup</h2>\n<p>Run the adapter yourself over stdio, next to your AI app.</p>\n<p>This is your MCP server URL.", 1)
	})
}

// declareOutputSchema makes tool declare schema as its outputSchema.
func declareOutputSchema(tool, schema string) func(*Seams) {
	return withMiddleware(onTool(tool, func(t *mcp.Tool) { t.OutputSchema = json.RawMessage(schema) }))
}
