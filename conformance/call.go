package conformance

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/internal/wiretap"
)

// callMarkerKey tags each tools/call in _meta so the wire tap can find that
// call's exchange while other checks call the same target concurrently.
const callMarkerKey = "mcpcheck/call"

// A Call is one tool call: what was sent and what came back, decoded by the
// SDK and as received on the wire.
type Call struct {
	Tool   string
	Args   map[string]any
	Result *mcp.CallToolResult
	// Raw is the JSON-RPC result member exactly as received; nil when the
	// tap did not see it.
	Raw json.RawMessage
	// RPCError is set when the target answered with a JSON-RPC error
	// instead of a result (Result is then an empty isError result).
	RPCError *jsonrpc.Error

	redact  func(string) string // before clipping: a cut token is not matched
	dialect *dialect.Dialect    // the target's argument names, for [Call.Role]
	memo    *callMemo           // what probes read from this answer ([DiscoverCall])
}

// Call calls a tool and keeps its wire bytes. A transport failure ends the
// check as a harness error, not as a conformance failure. Args are named
// as the target declares them: the seed's names, or names from
// [T.ArgsFor] or a printed call; an argument the target does not declare
// is never sent ([T.CallRoles], [T.CallAsGiven]).
func (t *T) Call(name string, args map[string]any) *Call {
	return t.callOn(t.Target, name, args, false)
}

func (t *T) callOn(tgt *Target, name string, args map[string]any, asGiven bool) *Call {
	if !tgt.hasTool(name) {
		t.Skipf("the target serves no %s tool (S012 judges membership)", name)
	}
	if args == nil {
		args = map[string]any{}
	}
	if !asGiven {
		t.refuseUndeclared(tgt, name, args)
	}
	if reason := tgt.Down(); reason != "" {
		panic(errorSignal{fmt.Sprintf("call %s: not sent: the target stopped serving (%s)", name, reason)})
	}
	ctx := t.ctx
	if tgt.callTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, tgt.callTimeout)
		defer cancel()
	}
	res, ex, seen, err := tgt.callTapped(ctx, name, args)
	var rpcErr *jsonrpc.Error
	switch {
	case err != nil && seen && len(ex.Error) > 0 && errors.As(err, &rpcErr):
		// A protocol-level rejection (say -32602 for invalid params) is the
		// target's answer, not a harness fault. The SDK reports transport
		// failures as *jsonrpc.Error too; the tap says which it was.
		tgt.calls.Add(1)
		tgt.failedCalls.Add(1)
		c := &Call{Tool: name, Args: args, Result: &mcp.CallToolResult{IsError: true}, RPCError: rpcErr, redact: tgt.redact, dialect: tgt.Dialect()}
		t.run.noteCall(c)
		return c
	case err != nil:
		panic(errorSignal{tgt.callFailed(ctx, "call "+name, err)})
	}
	tgt.calls.Add(1)
	if res.IsError {
		tgt.failedCalls.Add(1)
	}
	lineFeedsOnly(res)
	c := &Call{Tool: name, Args: args, Result: res, redact: tgt.redact, dialect: tgt.Dialect(), memo: &callMemo{}}
	if seen {
		c.Raw = ex.Result
	}
	if !c.IsError() {
		tgt.learnRoles(t, c)
	}
	t.run.noteCall(c)
	return c
}

// callTapped calls a tool with a marker in _meta, so the wire tap finds
// this call's exchange while other callers use the same target.
func (t *Target) callTapped(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, wiretap.Exchange, bool, error) {
	var b [8]byte
	_, _ = rand.Read(b[:])
	marker := hex.EncodeToString(b[:])
	res, err := t.Session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args, Meta: mcp.Meta{callMarkerKey: marker}})
	ex, seen := t.Tap.Take(marker) // the tap keeps only a prefix from here
	return res, ex, seen, err
}

// CallRaw calls a tool and returns its result with the JSON-RPC result
// member exactly as received (nil when the tap did not see it).
func (t *Target) CallRaw(ctx context.Context, name string, args map[string]any) (*mcp.CallToolResult, json.RawMessage, error) {
	res, ex, seen, err := t.callTapped(ctx, name, args)
	if err != nil || !seen {
		return res, nil, err
	}
	return res, ex.Result, nil
}

// Text is the concatenated text of the content[] text parts: what a host
// that hides structuredContent shows the model. For a JSON-RPC error it is
// the error's message.
func (c *Call) Text() string {
	if c.RPCError != nil {
		return c.RPCError.Message
	}
	var parts []string
	for _, p := range c.Result.Content {
		if tc, ok := p.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// lineFeedsOnly reads a text's CRLF line ends as LF: a notation, which
// readers of lines would otherwise take as part of the line.
func lineFeedsOnly(res *mcp.CallToolResult) {
	for _, p := range res.Content {
		if tc, ok := p.(*mcp.TextContent); ok && strings.Contains(tc.Text, "\r\n") {
			tc.Text = strings.ReplaceAll(tc.Text, "\r\n", "\n")
		}
	}
}

// IsError reports a tool-level error result.
func (c *Call) IsError() bool { return c.Result.IsError }

// Bytes is the size of the whole result as received: content and
// structuredContent together.
func (c *Call) Bytes() int {
	if c.Raw != nil {
		return len(c.Raw)
	}
	b, _ := json.Marshal(c.Result)
	return len(b)
}

// Structured is structuredContent decoded from the wire, or nil.
func (c *Call) Structured() map[string]any {
	var r struct {
		StructuredContent map[string]any `json:"structuredContent"`
	}
	if c.Raw != nil && json.Unmarshal(c.Raw, &r) == nil {
		return r.StructuredContent
	}
	m, _ := c.Result.StructuredContent.(map[string]any)
	if m == nil && c.Result.StructuredContent != nil {
		b, _ := json.Marshal(c.Result.StructuredContent)
		_ = json.Unmarshal(b, &m)
	}
	return m
}

// Data is structuredContent.data as an object, or nil.
func (c *Call) Data() map[string]any {
	d, _ := c.Structured()["data"].(map[string]any)
	return d
}

// ErrorObject is the typed error of an isError result, from whichever
// channel carries it: the JSON text (adapter or RS error), or
// structuredContent.error. Nil when neither holds an object.
func (c *Call) ErrorObject() map[string]any {
	var obj map[string]any
	if json.Unmarshal([]byte(strings.TrimSpace(c.Text())), &obj) == nil {
		if inner, ok := obj["error"].(map[string]any); ok {
			return inner
		}
		if obj["code"] != nil || obj["type"] != nil {
			return obj
		}
	}
	if e, ok := c.Structured()["error"].(map[string]any); ok {
		if inner, ok := e["error"].(map[string]any); ok {
			return inner
		}
		return e
	}
	return nil
}

// ErrorCode is the typed error code, or "". A JSON-RPC error is typed by
// its numeric code ("jsonrpc:-32602").
func (c *Call) ErrorCode() string {
	if c.RPCError != nil {
		return fmt.Sprintf("jsonrpc:%d", c.RPCError.Code)
	}
	s, _ := c.ErrorObject()["code"].(string)
	return s
}

// Describe is a bounded one-line account of the call for failure messages.
func (c *Call) Describe() string {
	argBytes, _ := json.Marshal(c.Args)
	args, text := string(argBytes), strings.Join(strings.Fields(c.Text()), " ")
	if c.redact != nil {
		args, text = c.redact(args), c.redact(text)
	}
	return fmt.Sprintf("%s %s → isError=%t %s", c.Tool, ClipText(args, 200), c.IsError(), ClipText(text, describedText))
}

// evidence is what a check run keeps of c to describe it later: c as
// Describe sees it, its text cut well past what Describe shows (past a
// redaction window, so a token at the cut is still matched whole). The
// check holds the whole call only while it needs it: a target that pads
// every answer cannot grow what the run keeps.
func (c *Call) evidence() *Call {
	text := squeezeSpace(c.Text(), describedText+evidenceMargin)
	e := &Call{Tool: c.Tool, Args: c.Args, redact: c.redact, Result: &mcp.CallToolResult{IsError: c.IsError()}}
	if c.RPCError != nil {
		e.RPCError = &jsonrpc.Error{Code: c.RPCError.Code, Message: text}
	} else {
		e.Result.Content = []mcp.Content{&mcp.TextContent{Text: text}}
	}
	return e
}

// describedText is how much of a call's text Describe shows;
// evidenceMargin is how much more evidence keeps, over the redactor's
// 12-character window.
const describedText, evidenceMargin = 400, 64

// ClipText is s cut to n characters (runes), with an ellipsis when cut: how
// a failure message quotes a long answer.
func ClipText(s string, n int) string {
	i := 0
	for range n {
		if i == len(s) {
			return s
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	if i == len(s) {
		return s
	}
	return s[:i] + "…"
}

// squeezeSpace is ClipText(strings.Join(strings.Fields(s), " "), n), read
// only as far as it needs.
func squeezeSpace(s string, n int) string {
	var b strings.Builder
	count, space := 0, false
	for i, r := range s {
		if unicode.IsSpace(r) {
			space = count > 0
			continue
		}
		if space && count < n {
			b.WriteByte(' ')
			count++
		}
		space = false
		if count == n {
			b.WriteString("…")
			return b.String()
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		b.WriteString(s[i : i+size])
		count++
	}
	return b.String()
}

func (t *Target) hasTool(name string) bool {
	return slices.ContainsFunc(t.Tools, func(tool *mcp.Tool) bool { return tool.Name == name })
}
