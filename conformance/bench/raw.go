package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"sync/atomic"

	"github.com/pdpp-connect/mcpcheck/conformance"
)

// A rawSession speaks Streamable HTTP with prebuilt request bodies, so the
// load generator's own cost stays small next to the adapter's: with the
// SDK client on the same two cores, the client would be measured as much
// as the server. Answers are still decoded enough to count errors.
type rawSession struct {
	hc        *http.Client
	endpoint  string
	token     string
	sessionID string
	ids       atomic.Int64
}

func dialRaw(ctx context.Context, hc *http.Client, endpoint, token string) (*rawSession, error) {
	s := &rawSession{hc: hc, endpoint: endpoint, token: token}
	init := fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"mcpcheck-bench","version":"1"}}}`, conformance.ProtocolVersion)
	resp, err := s.post(ctx, []byte(init))
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	s.sessionID = resp.Header.Get("Mcp-Session-Id")
	if _, err := answer(resp); err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	resp, err = s.post(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	if err != nil {
		return nil, fmt.Errorf("notifications/initialized: %w", err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return s, nil
}

func (s *rawSession) post(ctx context.Context, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", conformance.ProtocolVersion)
	if s.token != "" {
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
	if s.sessionID != "" {
		req.Header.Set("Mcp-Session-Id", s.sessionID)
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		return nil, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	return resp, nil
}

// callBody is a tools/call request split around its id.
type callBody struct{ head, tail []byte }

func newCallBody(c call) callBody {
	params, _ := json.Marshal(map[string]any{"name": c.tool, "arguments": c.args})
	return callBody{head: []byte(`{"jsonrpc":"2.0","id":`), tail: append(append([]byte(`,"method":"tools/call","params":`), params...), '}')}
}

// call sends one tools/call and reports a JSON-RPC error or isError.
func (s *rawSession) call(ctx context.Context, b callBody) error {
	body := make([]byte, 0, len(b.head)+len(b.tail)+20)
	body = append(body, b.head...)
	body = strconv.AppendInt(body, s.ids.Add(1), 10)
	body = append(body, b.tail...)
	resp, err := s.post(ctx, body)
	if err != nil {
		return err
	}
	msg, err := answer(resp)
	if err != nil {
		return err
	}
	var r struct {
		Result struct {
			IsError bool `json:"isError"`
		} `json:"result"`
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(msg, &r); err != nil {
		return fmt.Errorf("answer is not JSON-RPC: %w", err)
	}
	switch {
	case r.Error != nil:
		return errors.New("JSON-RPC error: " + r.Error.Message)
	case r.Result.IsError:
		return errors.New("isError")
	}
	return nil
}

// answer reads the response message: the JSON body, or the SSE event that
// carries a response (one with a result or an error).
func answer(resp *http.Response) ([]byte, error) {
	defer resp.Body.Close()
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if ct != "text/event-stream" {
		return io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	var data []byte
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case bytes.HasPrefix(line, []byte("data:")):
			data = append(data, bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))...)
		case len(line) == 0 && len(data) > 0:
			if bytes.Contains(data, []byte(`"result"`)) || bytes.Contains(data, []byte(`"error"`)) {
				return data, nil
			}
			data = data[:0]
		}
	}
	if len(data) > 0 {
		return data, nil
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return nil, errors.New("the event stream ended without a response")
}
