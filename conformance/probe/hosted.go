package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// An HTTPAnswer is a raw HTTP exchange with a hosted target.
type HTTPAnswer struct {
	Status int
	Header http.Header
	Body   []byte
	Err    error
}

// JSON decodes the body, or returns nil.
func (a HTTPAnswer) JSON() map[string]any {
	var m map[string]any
	_ = json.Unmarshal(a.Body, &m)
	return m
}

// HostedClient follows redirects only within the origin a probe went to:
// a bearer never leaves it, and a hostile target cannot redirect an
// anonymous probe to a URL it wants read and quoted in the report (a CI
// runner's metadata service, say).
var HostedClient = conformance.HostedProbeClient()

// HostedTimeout bounds one request below the MCP SDK.
const HostedTimeout = 10 * time.Second

// HostedDo sends one request to the hosted target, below the MCP SDK, with
// the given Authorization header ("" for none). It reads at most 1 MiB.
func HostedDo(ctx context.Context, method, url, authorization string, body []byte, header map[string]string) HTTPAnswer {
	ctx, cancel := context.WithTimeout(ctx, HostedTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return HTTPAnswer{Err: err}
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
	resp, err := HostedClient.Do(req)
	if err != nil {
		return HTTPAnswer{Err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return HTTPAnswer{Status: resp.StatusCode, Header: resp.Header, Body: b, Err: err}
}

// InitializeBody is a JSON-RPC initialize request.
var InitializeBody = []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + conformance.ProtocolVersion +
	`","capabilities":{},"clientInfo":{"name":"mcpcheck","version":"probe"}}}`)

// ToolsListBody is a JSON-RPC tools/list request.
var ToolsListBody = []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`)

// ResourceMetadata reads the resource_metadata URL of a bearer challenge.
var ResourceMetadata = regexp.MustCompile(`resource_metadata="([^"]+)"`)

// IsJSONRPC reports whether a body answers the request as MCP: a JSON-RPC
// result, in JSON or an SSE event. A JSON-RPC error object is how many
// servers shape a refusal (an HTTP 401/403 with "id": null), not
// processing.
func IsJSONRPC(body []byte) bool {
	var m map[string]any
	if json.Unmarshal(bytes.TrimSpace(body), &m) != nil {
		return strings.Contains(string(body), `"jsonrpc"`) && strings.Contains(string(body), `"result"`)
	}
	_, ok := m["result"]
	return ok
}

// rejectedCallBodies are tools/call requests a rejected bearer sends: had
// the endpoint processed them, the RS would have been asked for data.
var rejectedCallBodies = [][]byte{
	[]byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"schema","arguments":{}}}`),
	[]byte(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"query_records","arguments":{"stream":"messages"}}}`),
}

// RejectedBodies are every request a rejected bearer sends.
var RejectedBodies = append([][]byte{InitializeBody, ToolsListBody}, rejectedCallBodies...)

// DataReads are the RS requests carrying token that read data (records,
// aggregates, search, blobs): a bearer check is any other request
// carrying it, a schema lookup included. As evidence, the log lines.
func DataReads(reqs []fakers.Request, token string) []string {
	var out []string
	for _, r := range reqs {
		if r.Authorization != "Bearer "+token {
			continue
		}
		if strings.HasPrefix(r.Path, "/v1/streams/") || strings.HasPrefix(r.Path, "/v1/search") || strings.HasPrefix(r.Path, "/v1/blobs") {
			out = append(out, r.Method+" "+r.Path)
		}
	}
	return out
}

// RSDataRequests counts RS requests made with a bearer. The fixture RS
// keeps the hosted adapter's exact auth probe out of its log; any other
// request, a schema lookup included, means the endpoint acted on the
// bearer.
func RSDataRequests(t *conformance.T, token string) int {
	n := 0
	for _, r := range t.RS().Requests() {
		if r.Authorization == "Bearer "+token {
			n++
		}
	}
	return n
}

var markupRe = regexp.MustCompile(`(?s)<script.*?</script>|<style.*?</style>|<[^>]+>`)

// SetupCopy is a setup document of the hosted target (the /connect page,
// /llms.txt) as a reader sees it: text without markup. ok is false when
// the target does not serve it.
func SetupCopy(t *conformance.T, path string) (string, bool) {
	a := HostedDo(t.Context(), "GET", t.Hosted().Origin()+path, "", nil, nil)
	if a.Err != nil || a.Status != http.StatusOK {
		return "", false
	}
	if strings.Contains(a.Header.Get("Content-Type"), "html") {
		return html.UnescapeString(markupRe.ReplaceAllString(string(a.Body), " ")), true
	}
	return string(a.Body), true
}

// SameNames reports whether two lists hold the same names, in any order.
func SameNames(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// Evidence is the answer as a witness reads it: a JSON body's keys and
// string values, else its body as text. A failed exchange (Err) is no
// evidence of absence: callers judge it not exercised first.
func (a HTTPAnswer) Evidence(label string) conformance.Evidence {
	if a.Err != nil {
		return conformance.Answers()
	}
	var v any
	if json.Unmarshal(a.Body, &v) != nil {
		return conformance.Shown(label, string(a.Body))
	}
	return JSONEvidence(label, v)
}

// JSONEvidence is a decoded JSON document as evidence: its keys and its
// string values, numbers and booleans written out.
func JSONEvidence(label string, v any) conformance.Evidence {
	var strs []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				strs = append(strs, k)
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case nil:
		default:
			strs = append(strs, String(x))
		}
	}
	walk(v)
	return jsonDoc{label, strs}
}

type jsonDoc struct {
	label string
	strs  []string
}

func (d jsonDoc) Strings() []string { return d.strs }
func (d jsonDoc) Describe() string  { return d.label }

// A JSONString is one string value of a JSON document, with the dotted
// path it sits at: structure is found by its values, the path only says
// where.
type JSONString struct{ Path, Value string }

// JSONStrings are the string values anywhere in v, in no fixed order.
func JSONStrings(v any) []JSONString {
	var out []JSONString
	var walk func(string, any)
	walk = func(at string, v any) {
		switch x := v.(type) {
		case string:
			out = append(out, JSONString{at, x})
		case map[string]any:
			for k, e := range x {
				walk(strings.TrimPrefix(at+"."+k, "."), e)
			}
		case []any:
			for i, e := range x {
				walk(at+"["+strconv.Itoa(i)+"]", e)
			}
		}
	}
	walk("", v)
	return out
}

// JSONLists are the lists of strings anywhere in v.
func JSONLists(v any) [][]string {
	var out [][]string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		case []any:
			if l := StringList(x); len(l) == len(x) && len(l) > 0 {
				out = append(out, l)
			}
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}
