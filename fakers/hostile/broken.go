package hostile

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// Broken adapters: they speak MCP well enough, but serve PDPP badly or
// die the way real first attempts do. Reports against them must stay
// short and name the root cause first.
const (
	// Naive serves the six tools with loose schemas and answers every
	// call with a raw JSON dump as text: what a first adapter that
	// forwards the RS does.
	Naive = "naive"
	// PythonCrash writes a Python traceback to stderr and exits 1 before
	// answering initialize: a failed import.
	PythonCrash = "python-crash"
	// PythonCrashMidCall answers initialize and tools/list as Naive, then
	// writes a traceback and exits on the first tools/call.
	PythonCrashMidCall = "python-crash-mid-call"
)

// BrokenModes lists the broken-adapter modes (stdio only).
var BrokenModes = []string{Naive, PythonCrash, PythonCrashMidCall}

// Traceback is what the Python modes write to stderr (with a line holding
// the client token before its last): 26 lines whose first says nothing
// and whose last says what broke.
var Traceback = func() string {
	var b strings.Builder
	b.WriteString("Traceback (most recent call last):\n")
	for i := range 12 {
		fmt.Fprintf(&b, "  File \"/srv/adapter/layer%d.py\", line %d, in handle\n    return next_layer(request)\n", i, 10+i)
	}
	b.WriteString("ModuleNotFoundError: No module named 'pdpp_client'\n")
	return b.String()
}()

// naiveAnswer answers one request as the Naive adapter does; nil for a
// notification.
func naiveAnswer(req naiveRequest) []byte {
	if len(req.ID) == 0 {
		return nil
	}
	var result any
	switch req.Method {
	case "initialize":
		result = map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{"tools": map[string]any{}},
			"serverInfo": map[string]any{"name": "naive-pdpp", "version": "0.1"}}
	case "ping":
		result = map[string]any{}
	case "tools/list":
		var list []map[string]any
		for _, name := range tools {
			list = append(list, map[string]any{"name": name, "description": "Calls the RS " + name + " endpoint.",
				"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"stream": map[string]any{"type": "string"}, "query": map[string]any{"type": "string"}}}})
		}
		result = map[string]any{"tools": list}
	case "tools/call":
		dump, _ := json.Marshal(map[string]any{"ok": true, "tool": req.Params.Name, "data": []map[string]any{{"id": "rec_1", "fields": []string{"title"}}}})
		result = map[string]any{"content": []any{map[string]any{"type": "text", "text": string(dump)}}}
	default:
		return []byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"error":{"code":-32601,"message":"method not found"}}`)
	}
	data, _ := json.Marshal(result)
	return []byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":` + string(data) + `}`)
}

type naiveRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name string `json:"name"`
	} `json:"params"`
}

// crash writes the traceback, with the token just before its last line
// as a careless log line would, and exits 1.
func crash() {
	last := strings.LastIndex(strings.TrimSuffix(Traceback, "\n"), "\n") + 1
	fmt.Fprintf(os.Stderr, "%sDEBUG request had token=%s\n%s", Traceback[:last], os.Getenv("PDPP_CLIENT_TOKEN"), Traceback[last:])
	os.Exit(1)
}

// runBroken serves a broken mode on stdin/stdout; the crashing modes exit
// the process with 1.
func runBroken(mode string, stdin io.Reader, stdout io.Writer) {
	if mode == PythonCrash {
		crash()
	}
	dec := json.NewDecoder(stdin)
	for {
		var req naiveRequest
		if err := dec.Decode(&req); err != nil {
			return
		}
		if mode == PythonCrashMidCall && req.Method == "tools/call" {
			crash()
		}
		if msg := naiveAnswer(req); msg != nil {
			_, _ = stdout.Write(append(msg, '\n'))
		}
	}
}
