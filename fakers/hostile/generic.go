package hostile

import (
	"context"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Generic is a well-behaved MCP server that is not a PDPP adapter: a
// go-sdk server with two tools of its own, as a user might point mcpcheck
// at by mistake. mcpcheck must say so first, judge none of the PDPP
// scenarios, and exit with its own code.
func Generic() http.Handler {
	srv := mcp.NewServer(&mcp.Implementation{Name: "generic-mcp", Version: "1"}, nil)
	type echoArgs struct {
		Text string `json:"text" jsonschema:"what to say back"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Say the text back."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "add", Description: "Add two numbers."},
		func(_ context.Context, _ *mcp.CallToolRequest, in struct{ A, B float64 }) (*mcp.CallToolResult, struct{ Sum float64 }, error) {
			return nil, struct{ Sum float64 }{in.A + in.B}, nil
		})
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
}
