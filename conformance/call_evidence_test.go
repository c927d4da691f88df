package conformance

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// squeezeSpace reads only what it keeps, and keeps what the slow way would.
func TestSqueezeSpaceIsClipTextOfFields(t *testing.T) {
	for _, s := range []string{"", "a", "  a  b  ", "a b c d e f", strings.Repeat("ab  cd\n", 50), "日本 語\t\tx", strings.Repeat("x", 30), "x\u0085y z", "invalid \xff byte"} {
		for n := 0; n < 40; n++ {
			want := ClipText(strings.Join(strings.Fields(s), " "), n)
			if got := squeezeSpace(s, n); got != want {
				t.Errorf("%q %d: %q want %q", s, n, got, want)
			}
		}
	}
}

// What a check run keeps of a call is bounded, and describes the call as
// the call itself would, token redaction included.
func TestEvidenceIsBoundedAndDescribesTheCall(t *testing.T) {
	const token = "Evidence-Token-0123456789abcdef"
	red := NewRedactor()
	red.Add(token)
	for _, text := range []string{
		"short answer",
		strings.Repeat("padding ", 1<<17),
		strings.Repeat("x", 395) + " " + token + strings.Repeat(" y", 1<<16),
		strings.Repeat(" \n", 1<<16) + token + " after",
	} {
		c := &Call{Tool: "search", Args: map[string]any{"q": "a"}, Result: &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, redact: red.String}
		e := c.evidence()
		if n := len(e.Text()); n > 4*(describedText+evidenceMargin)+8 {
			t.Errorf("evidence keeps %d bytes of a %d-byte answer", n, len(text))
		}
		if got, want := e.Describe(), c.Describe(); got != want {
			t.Errorf("evidence describes the call as %q, the call as %q", got, want)
		}
		if strings.Contains(e.Describe(), "Token-0123") {
			t.Errorf("the token shows: %q", e.Describe())
		}
	}
	rpc := &Call{Tool: "fetch", Result: &mcp.CallToolResult{IsError: true}, RPCError: &jsonrpc.Error{Code: -32602, Message: strings.Repeat("bad ", 1<<16)}}
	if e := rpc.evidence(); e.Describe() != rpc.Describe() || len(e.RPCError.Message) > 4*(describedText+evidenceMargin)+8 {
		t.Errorf("a JSON-RPC error's evidence: %q", e.Describe())
	}
}
