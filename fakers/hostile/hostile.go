// Package hostile holds deliberately broken MCP servers, over stdio and
// Streamable HTTP, for tests that mcpcheck ends every run against them
// within a bounded time, with a one-line reason and the right exit code.
// Test binaries run a stdio mode from their TestMain (see [Env]).
package hostile

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Env is the environment variable that asks a test binary to be a hostile
// stdio server instead of running its tests.
const Env = "MCPCHECK_HOSTILE"

// Modes of misbehaviour. Each is served over stdio and HTTP alike.
const (
	HangAfterInit  = "hang-after-init" // answers initialize, then nothing
	HangOnCall     = "hang-on-call"    // answers initialize and tools/list, never a tools/call
	Garbage        = "garbage"         // a banner that is not JSON-RPC, then silence
	HugeToolsList  = "huge-tools-list" // a 100 MB tools/list result
	CrashMidCall   = "crash-mid-call"  // half an answer to the first tools/call, then exit (HTTP: drop and stop listening)
	InvalidVersion = "invalid-version" // "jsonrpc":"1.0" answers
	InvalidResult  = "invalid-result"  // initialize's result is a string
	InvalidID      = "invalid-id"      // answers carry an id nobody asked for
	InvalidMessage = "invalid-message" // well-formed JSON that is not JSON-RPC
	// EndlessPagination answers every tools/list with a page of PageBytes
	// and a nextCursor to yet another page.
	EndlessPagination = "endless-pagination"
	// HugeDescriptions lists the six tools, each described in
	// DescriptionBytes of words, and answers every tools/call with an
	// error. Not in Modes: the run goes on to its end.
	HugeDescriptions = "huge-descriptions"
)

// DescriptionBytes is the size of each HugeDescriptions description.
const DescriptionBytes = 400 << 10

// Modes lists every mode.
var Modes = []string{HangAfterInit, HangOnCall, Garbage, HugeToolsList, CrashMidCall, InvalidVersion, InvalidResult, InvalidID, InvalidMessage, EndlessPagination}

// HugeBytes is the size of the HugeToolsList result.
const HugeBytes = 100 << 20

// PageBytes is the size of each EndlessPagination page.
const PageBytes = 2 << 20

// tools is a plausible six-tool surface, so checks go on to call tools.
var tools = []string{"schema", "query_records", "aggregate", "search", "fetch", "read_record_field"}

type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Cursor string `json:"cursor"`
	} `json:"params"`
}

// Cursor is the tools/list cursor asked for, "" for the first page.
func (r request) Cursor() string { return r.Params.Cursor }

// endlessPage is one tools/list page of about PageBytes whose nextCursor
// always leads to another.
func endlessPage(cursor string) string {
	n, _ := strconv.Atoi(strings.TrimPrefix(cursor, "page-"))
	return fmt.Sprintf(`{"tools":[{"name":"tool_%d","inputSchema":{"type":"object"},"description":"%s"}],"nextCursor":"page-%d"}`,
		n, strings.Repeat("x", PageBytes), n+1)
}

// answer returns the raw answer to one request, or nil for none. A nil
// answer with hang set means: never answer this one. secrets are what
// TokenEcho repeats.
func answer(mode string, req request, secrets []string) (msg []byte, hang bool) {
	if len(req.ID) == 0 {
		return nil, false // a notification
	}
	if mode == TerminalInjection || mode == TokenEcho || mode == WorkflowInjection {
		return leakAnswer(mode, req, secrets), false
	}
	ok := func(result string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":` + result + `}`)
	}
	initResult := `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"hostile-` + mode + `","version":"0"}}`
	switch mode {
	case InvalidVersion:
		return []byte(`{"jsonrpc":"1.0","id":` + string(req.ID) + `,"result":` + initResult + `}`), false
	case InvalidID:
		return []byte(`{"jsonrpc":"2.0","id":"not-` + strings.Trim(string(req.ID), `"`) + `","result":` + initResult + `}`), false
	case InvalidMessage:
		return []byte(`{"hello":"world","answer":42}`), false
	case InvalidResult:
		if req.Method == "initialize" {
			return ok(`"ready"`), false
		}
	}
	switch req.Method {
	case "initialize":
		return ok(initResult), false
	case "ping":
		return ok(`{}`), false
	case "tools/list":
		if mode == HangAfterInit {
			return nil, true
		}
		if mode == EndlessPagination {
			return ok(endlessPage(req.Cursor())), false
		}
		description := "Read-only."
		if mode == HugeDescriptions {
			description = strings.Repeat("Padding ", DescriptionBytes/8)
		}
		var b strings.Builder
		for i, name := range tools {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"name":%q,"description":%q,"inputSchema":{"type":"object"}}`, name, description)
		}
		return ok(`{"tools":[` + b.String() + `]}`), false
	case "tools/call":
		if mode == ChallengeElsewhere || mode == ChallengeRedirect || mode == HugeDescriptions {
			return ok(`{"content":[{"type":"text","text":"no data"}],"isError":true}`), false
		}
		return nil, true
	}
	if mode == HangAfterInit {
		return nil, true
	}
	return []byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"error":{"code":-32601,"message":"method not found"}}`), false
}

// writeHuge streams a tools/list answer whose result is HugeBytes long.
func writeHuge(w io.Writer, id json.RawMessage) error {
	head := `{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"tools":[{"name":"schema","inputSchema":{"type":"object"},"description":"`
	if _, err := io.WriteString(w, head); err != nil {
		return err
	}
	chunk := []byte(strings.Repeat("x", 64<<10))
	for n := 0; n < HugeBytes; n += len(chunk) {
		if _, err := w.Write(chunk); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, `"}]}}`)
	return err
}

// RunStdio serves mode on stdin/stdout until stdin closes, and reports
// whether mode is one it knows. CrashMidCall exits the process.
func RunStdio(mode string, stdin io.Reader, stdout io.Writer) bool {
	known := false
	for _, m := range append(append([]string{HugeDescriptions}, Modes...), LeakModes...) {
		known = known || m == mode
	}
	if slices.Contains(BrokenModes, mode) {
		runBroken(mode, stdin, stdout)
		return true
	}
	if !known {
		return false
	}
	if mode == Garbage {
		fmt.Fprintln(stdout, "Starting my adapter... ready!")
		_, _ = io.Copy(io.Discard, stdin)
		return true
	}
	br := bufio.NewReader(stdin)
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			return true
		}
		var req request
		if json.Unmarshal(line, &req) != nil {
			continue
		}
		switch {
		case mode == HugeToolsList && req.Method == "tools/list":
			_ = writeHuge(stdout, req.ID)
			_, _ = io.WriteString(stdout, "\n")
			continue
		case mode == CrashMidCall && req.Method == "tools/call":
			_, _ = io.WriteString(stdout, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"content":[{"type":"te`)
			fmt.Fprintln(os.Stderr, "panic: runtime error: invalid memory address or nil pointer dereference")
			os.Exit(2)
		}
		msg, _ := answer(mode, req, []string{os.Getenv("PDPP_CLIENT_TOKEN"), os.Getenv("MCPCHECK_RS_TOKEN")})
		if msg != nil {
			_, _ = stdout.Write(append(msg, '\n'))
		}
	}
}

// Server is a hostile Streamable HTTP endpoint (JSON responses, no
// sessions). Crash makes it stop listening, for CrashMidCall.
type Server struct {
	Mode  string
	Crash func()
	// Hold bounds how long a hung request is held before the handler
	// gives up, so test servers can shut down.
	Hold time.Duration
	// RedirectTo is where the redirecting modes send every request.
	RedirectTo string
	// Secrets are what TokenEcho repeats, besides each request's bearer.
	Secrets []string
	// Token is the one bearer the challenging modes answer.
	Token string
	// Pad is the size of each PaddedAnswers answer's padding.
	Pad int

	padOnce sync.Once
	padding string

	once sync.Once
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if (s.Mode == ChallengeElsewhere || s.Mode == ChallengeRedirect) && s.challenge(w, r) {
		return
	}
	if code := redirectStatus[s.Mode]; code != 0 {
		http.Redirect(w, r, s.RedirectTo, code)
		return
	}
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	if s.Mode == Garbage {
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, "<html><body>Welcome to nginx!</body></html>")
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var req request
	if err != nil || json.Unmarshal(body, &req) != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if len(req.ID) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	switch {
	case s.Mode == HugeToolsList && req.Method == "tools/list":
		w.Header().Set("Content-Type", "application/json")
		_ = writeHuge(w, req.ID)
		return
	case s.Mode == PaddedAnswers && req.Method == "tools/call":
		s.writePadded(w, req.ID)
		return
	case s.Mode == CrashMidCall && req.Method == "tools/call":
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"content":[{"type":"te`)
		if s.Crash != nil {
			s.once.Do(func() { go s.Crash() })
		}
		panic(http.ErrAbortHandler) // drop the connection mid-answer
	}
	secrets := append(append([]string(nil), s.Secrets...), strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
	msg, hang := answer(s.Mode, req, secrets)
	if hang {
		hold := s.Hold
		if hold == 0 {
			hold = time.Minute
		}
		select {
		case <-r.Context().Done():
		case <-time.After(hold):
		}
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(msg)
}
