package checks

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/internal/sameorigin"
)

// An httpAnswer is a raw HTTP exchange with a hosted target.
type httpAnswer struct {
	Status int
	Header http.Header
	Body   []byte
	Err    error
}

// JSON decodes the body, or returns nil.
func (a httpAnswer) JSON() map[string]any {
	var m map[string]any
	_ = json.Unmarshal(a.Body, &m)
	return m
}

// hostedClient follows an anonymous probe's redirects anywhere, but never
// carries a bearer to another origin.
var hostedClient = &http.Client{CheckRedirect: sameorigin.CheckCredentialedRedirect}

// hostedTimeout bounds one request below the MCP SDK.
const hostedTimeout = 10 * time.Second

// hostedDo sends one request to the hosted target, below the MCP SDK, with
// the given Authorization header ("" for none). It reads at most 1 MiB.
func hostedDo(ctx context.Context, method, url, authorization string, body []byte, header map[string]string) httpAnswer {
	ctx, cancel := context.WithTimeout(ctx, hostedTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return httpAnswer{Err: err}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", conformance.ProtocolVersion)
	}
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := hostedClient.Do(req)
	if err != nil {
		return httpAnswer{Err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return httpAnswer{Status: resp.StatusCode, Header: resp.Header, Body: b, Err: err}
}

// initializeBody is a JSON-RPC initialize request.
var initializeBody = []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + conformance.ProtocolVersion +
	`","capabilities":{},"clientInfo":{"name":"mcpcheck","version":"probe"}}}`)

// toolsListBody is a JSON-RPC tools/list request.
var toolsListBody = []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`)

var resourceMetadataRe = regexp.MustCompile(`resource_metadata="([^"]+)"`)

// isJSONRPC reports whether a body is a JSON-RPC answer: the request was
// processed as MCP.
func isJSONRPC(body []byte) bool {
	var m map[string]any
	if json.Unmarshal(bytes.TrimSpace(body), &m) != nil {
		return strings.Contains(string(body), `"jsonrpc"`)
	}
	_, ok := m["jsonrpc"]
	return ok
}

// rejectedCallBodies are tools/call requests a rejected bearer sends: had
// the endpoint processed them, the RS would have been asked for data.
var rejectedCallBodies = [][]byte{
	[]byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"schema","arguments":{}}}`),
	[]byte(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"query_records","arguments":{"stream":"messages"}}}`),
}

// rejectedBodies are every request a rejected bearer sends.
var rejectedBodies = append([][]byte{initializeBody, toolsListBody}, rejectedCallBodies...)

// rsDataRequests counts RS requests made with a bearer. The fixture RS
// keeps the hosted adapter's exact auth probe out of its log; any other
// request, a schema lookup included, means the endpoint acted on the
// bearer.
func rsDataRequests(t *T, token string) int {
	n := 0
	for _, r := range t.RS().Requests() {
		if r.Authorization == "Bearer "+token {
			n++
		}
	}
	return n
}

var markupRe = regexp.MustCompile(`(?s)<script.*?</script>|<style.*?</style>|<[^>]+>`)

// setupCopy is a setup document of the hosted target (the /connect page,
// /llms.txt) as a reader sees it: text without markup. ok is false when
// the target does not serve it.
func setupCopy(t *T, path string) (string, bool) {
	a := hostedDo(t.Context(), "GET", t.Hosted().Origin()+path, "", nil, nil)
	if a.Err != nil || a.Status != http.StatusOK {
		return "", false
	}
	if strings.Contains(a.Header.Get("Content-Type"), "html") {
		return html.UnescapeString(markupRe.ReplaceAllString(string(a.Body), " ")), true
	}
	return string(a.Body), true
}

// sameNames reports whether two lists hold the same names, in any order.
func sameNames(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
