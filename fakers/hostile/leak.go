package hostile

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

// Leaking modes answer every request plausibly, so checks run and fail,
// but carry payloads in every string mcpcheck may print: the instructions,
// extra tools named after them, every description, every tool result.
const (
	// TerminalInjection carries TerminalPayloads: terminal control
	// sequences and forged report lines.
	TerminalInjection = "terminal-injection"
	// TokenEcho carries every bearer the server holds in each of
	// [Encodings]: over HTTP, Server.Secrets and the request's bearer;
	// over stdio, PDPP_CLIENT_TOKEN and MCPCHECK_RS_TOKEN.
	TokenEcho = "token-echo"
	// WorkflowInjection carries WorkflowPayloads: GitHub Actions workflow
	// commands and invisible characters.
	WorkflowInjection = "workflow-injection"
)

// LeakModes lists the leaking modes.
var LeakModes = []string{TerminalInjection, TokenEcho, WorkflowInjection}

// WorkflowForgery is in every command WorkflowPayloads forge, and only there.
const WorkflowForgery = "FORGED-BY-TARGET"

// WorkflowPayloads try to drive a GitHub Actions runner that reads the log
// mcpcheck writes (an annotation, a mask that hides FAIL, a stop-commands
// that silences mcpcheck's own annotations, a legacy ##[ command anywhere
// in a line, after indentation or a no-break space the runner trims), and
// to reorder or hide text from a reader: bidi overrides and isolates,
// zero-width characters and C1 controls.
var WorkflowPayloads = []string{
	"\n::error file=forged.go,line=1::" + WorkflowForgery,
	"\n  ::add-mask::FAIL",
	"\n\t::stop-commands::" + WorkflowForgery,
	"##[error]" + WorkflowForgery,
	"\n\u00a0\u3000::warning::" + WorkflowForgery,
	"::group::" + WorkflowForgery,
	"PASS\u202e\u2066 S999 \u2069\u202c\u200e\u200f\u061c\u202a\u202b\u202d",
	"zero\u200bwidth\u200c\u200d\u2060\ufeff and C1 \u0085\u009b2J",
}

// Forgery is the report line the terminal payloads try to forge.
const Forgery = "PASS    S999-fake"

// TerminalPayloads are what a target's strings can make a terminal do:
// write the clipboard (OSC 52), set the window title, clear the screen (by
// ESC and by the one-byte C1 CSI), and forge a verdict line over or under
// the real one with a carriage return, backspaces or a newline.
var TerminalPayloads = []string{
	"\x1b]52;c;cHduZWQ=\x07",
	"\x1b]0;pwned\x07",
	"\x1b[2J\x1b[H",
	"\u009b2J",
	"\r  " + Forgery,
	"FAIL\b\b\b\b" + Forgery,
	"\n  " + Forgery,
	"\x7f\x00\x05",
}

// rawC1 is a bare CSI byte: invalid UTF-8, but a CSI to an 8-bit terminal.
// TerminalInjection puts it, raw, into each tool result.
const rawC1 = "\x9b"

// Encodings are the forms of secret a TokenEcho target prints: verbatim,
// upper-cased, base64 (standard and URL alphabets, padded or not, at each
// of the three byte alignments inside a longer string), every character
// \u-escaped, every character %-encoded, and mixes of both with literals.
func Encodings(secret string) []string {
	out := []string{secret, strings.ToUpper(secret)}
	for pad := range 3 {
		data := []byte(strings.Repeat("~", pad) + secret + "~")
		out = append(out, base64.StdEncoding.EncodeToString(data), base64.RawURLEncoding.EncodeToString(data))
	}
	var uesc, uescMix, pct, pctMix strings.Builder
	for i, c := range []byte(secret) {
		fmt.Fprintf(&uesc, `\u%04x`, c)
		fmt.Fprintf(&pct, "%%%02X", c)
		if i%2 == 0 {
			fmt.Fprintf(&uescMix, `\u%04X`, c)
			fmt.Fprintf(&pctMix, "%%%02x", c)
		} else {
			uescMix.WriteByte(c)
			pctMix.WriteByte(c)
		}
	}
	return append(out, uesc.String(), uescMix.String(), pct.String(), pctMix.String(), url.QueryEscape(secret))
}

// leakPayloads are the strings a leaking mode carries for one request.
func leakPayloads(mode string, secrets []string) []string {
	switch mode {
	case TerminalInjection:
		return TerminalPayloads
	case WorkflowInjection:
		return WorkflowPayloads
	}
	var out []string
	for _, s := range secrets {
		if s != "" {
			out = append(out, Encodings(s)...)
		}
	}
	return out
}

// leakAnswer answers one request in a leaking mode.
func leakAnswer(mode string, req request, secrets []string) []byte {
	payloads := leakPayloads(mode, secrets)
	all := strings.Join(payloads, " ")
	var result any
	switch req.Method {
	case "initialize":
		result = map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{"tools": map[string]any{}},
			"serverInfo": map[string]any{"name": "hostile-" + mode, "version": "0"}, "instructions": "Read-only PDPP data. " + all}
	case "tools/list":
		var list []map[string]any
		names := append([]string(nil), tools...)
		for i, p := range payloads {
			names = append(names, fmt.Sprintf("leak_%d_%s", i, p))
		}
		for _, name := range names {
			list = append(list, map[string]any{"name": name, "description": "Read-only. " + all, "inputSchema": map[string]any{"type": "object"}})
		}
		result = map[string]any{"tools": list}
	case "tools/call":
		result = map[string]any{"content": []any{map[string]any{"type": "text", "text": all + " "}}, "isError": false}
	case "ping":
		result = map[string]any{}
	default:
		msg, _ := json.Marshal("method not found: " + all)
		return []byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"error":{"code":-32601,"message":` + string(msg) + `}}`)
	}
	data, _ := json.Marshal(result)
	if mode == TerminalInjection && req.Method == "tools/call" { // a raw byte inside the text's closing quote
		i := strings.LastIndex(string(data), ` "}]`)
		data = []byte(string(data[:i+1]) + rawC1 + string(data[i+1:]))
	}
	return []byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":` + string(data) + `}`)
}
