package variation

import (
	"context"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/adapter"
	json "github.com/segmentio/encoding/json"
)

// Variations of what initialize and tools/list advertise, and of the
// command's help text.

func instructions(f func(string) string) func(*Seams) {
	return withMiddleware(onInitialize(func(r *mcp.InitializeResult) { r.Instructions = f(r.Instructions) }))
}

// longConnectionProse is the kind of recovery paragraph seed 000 removed
// from every tool.
const longConnectionProse = "Pass connection_id when the grant spans several connections: connection ids can change when the owner reconnects a source, so copy the value from the latest schema call or from available_connections in an ambiguous_connection error, then retry the same call unchanged."

// duplicateConnectionProse puts it on every tool that takes connection_id.
func duplicateConnectionProse() func(*Seams) {
	return withMiddleware(onTools(func(tools []*mcp.Tool) []*mcp.Tool {
		for _, t := range tools {
			text := strings.Replace(schemaText(t), `"Source connection; see schema."`, `"`+longConnectionProse+`"`, 1)
			text = strings.Replace(text, `"connection_id":{"type":"string"}`, `"connection_id":{"type":"string","description":"`+longConnectionProse+`"}`, 1)
			setSchemaText(t, text)
		}
		return tools
	}))
}

func describe(tool string, f func(string) string) func(*Seams) {
	return withMiddleware(onTool(tool, func(t *mcp.Tool) { t.Description = f(t.Description) }))
}

func padDescriptions() func(*Seams) {
	return withMiddleware(onTools(func(tools []*mcp.Tool) []*mcp.Tool {
		for _, t := range tools {
			t.Description += " " + strings.Repeat("Remember that results are bounded and that paging is available. ", 70)
		}
		return tools
	}))
}

// extraTool advertises one more tool; the adapter does not serve it.
func extraTool(t mcp.Tool) mcp.Middleware {
	return onTools(func(tools []*mcp.Tool) []*mcp.Tool { return append(tools, &t) })
}

// The extra tools route as seed 000 asks (action, read-only or mutating,
// endpoint, a pointer to the schema tool): their only fault is being there.
var listStreamsTool = mcp.Tool{Name: "list_streams", Description: "List granted streams; see schema. Read-only; GET /v1/streams.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"connection_id":{"type":"string","description":"Source connection; see schema."}},"additionalProperties":false}`)}

// driftTool is what a stdio surface that drifted from hosted adds.
var driftTool = mcp.Tool{Name: "list_streams", Description: "List granted streams; see schema. Read-only; GET /v1/streams.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)}

var eventSubscriptionTool = mcp.Tool{Name: "create_event_subscription", Description: "Create a signed webhook subscription for record events; see schema. Mutating; POST /v1/event-subscriptions.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"url":{"type":"string"}},"required":["url"],"additionalProperties":false}`)}

// dropTool advertises no fetch and answers a call to it as the SDK answers
// any unknown tool.
func dropTool(name string) func(*Seams) {
	return withMiddleware(
		onTools(func(tools []*mcp.Tool) []*mcp.Tool {
			return slices.DeleteFunc(tools, func(t *mcp.Tool) bool { return t.Name == name })
		}),
		onCall(func(ctx context.Context, req *mcp.CallToolRequest, next callNext) (*mcp.CallToolResult, error) {
			if req.Params.Name == name {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: `unknown tool "` + name + `"`}
			}
			return next(ctx, req)
		}))
}

func addProperty(tools []string, name, def string) func(*Seams) {
	return withMiddleware(onTools(func(ts []*mcp.Tool) []*mcp.Tool {
		for _, t := range ts {
			if slices.Contains(tools, t.Name) {
				setSchemaText(t, withProperty(schemaText(t), name, def))
			}
		}
		return ts
	}))
}

// rewriteSchema replaces every old in tool's advertised input schema with
// new; calls are still validated against the real schema.
func rewriteSchema(tool, old, new string) func(*Seams) {
	return withMiddleware(onTool(tool, func(t *mcp.Tool) {
		setSchemaText(t, strings.ReplaceAll(schemaText(t), old, new))
	}))
}

// requireArgument advertises arg as required by tool; calls without it
// still work, so only the advertisement is wrong.
func requireArgument(tool, arg string) func(*Seams) {
	return withMiddleware(onTool(tool, func(t *mcp.Tool) {
		setSchemaText(t, strings.Replace(schemaText(t), `"required":["q"]`, `"required":["q","`+arg+`"]`, 1))
	}))
}

// stdioOnly applies ms to the stdio transport only.
func stdioOnly(ms ...mcp.Middleware) func(*Seams) {
	return func(s *Seams) {
		s.Options(func(o *adapter.Options) {
			if o.Stdio {
				o.Middleware = append(o.Middleware, ms...)
			}
		})
	}
}

// honourProfileEnv serves the event-subscription tool over stdio when
// PDPP_MCP_PROFILE=full, the profile selector seed 001 removed.
func honourProfileEnv(s *Seams) {
	if s.Getenv("PDPP_MCP_PROFILE") == "full" {
		stdioOnly(extraTool(eventSubscriptionTool))(s)
	}
}

// profileHelp is the profile selector seed 001 removed from --help.
const profileHelp = "  --profile NAME       tool profile: core|events|full (env PDPP_MCP_PROFILE)\n"

func advertiseProfileFlag(s *Seams) {
	s.Command.Help = strings.Replace(adapter.HelpText, "  --version", profileHelp+"  --version", 1)
}
