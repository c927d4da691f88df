package adapter

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"

	json "github.com/segmentio/encoding/json"
)

// guardMCP reads an authenticated /mcp request's body before the SDK does:
// bounded in time and size, and refused whole when it is a JSON-RPC batch,
// which protocol 2025-11-25 does not have (the SDK still runs batches sent
// without an MCP-Protocol-Version header, each call answered in one
// buffered array).
func (a *Adapter) guardMCP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		body, ok := a.readBody(w, r)
		if !ok {
			return
		}
		if t := bytes.TrimLeft(body, " \t\r\n"); len(t) > 0 && t[0] == '[' {
			writeRPCError(w, http.StatusBadRequest, "batch_not_supported",
				"JSON-RPC batch arrays are not supported: MCP 2025-11-25 has no batching; send one message per POST", nil)
			return
		}
		protectConn(r) // authenticated, and its body is in
		r.Body = io.NopCloser(bytes.NewReader(body))
		r, release := a.withCallerContext(r, body)
		defer release()
		next.ServeHTTP(w, r)
	})
}

// readBody reads the body, up to the body cap, within the read timeout
// counted from now (the bearer check before it may have taken a while),
// then lifts the read deadline: net/http goes on reading the connection in
// the background to notice a client that goes away, and a deadline left
// in place would cut off a tool call that outlives it.
func (a *Adapter) readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	limit := a.maxBody()
	if r.ContentLength > limit { // refused before reading a byte of it
		a.tooLarge(w)
		return nil, false
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(orDefault(a.opts.ReadTimeout, DefaultReadTimeout)))
	body, err := readGrowing(http.MaxBytesReader(w, r.Body, limit), r.ContentLength)
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		a.tooLarge(w)
		return nil, false
	case errors.Is(err, os.ErrDeadlineExceeded):
		w.Header().Set("Connection", "close")
		writeRPCError(w, http.StatusRequestTimeout, "request_timeout", "the request body did not arrive within the read timeout", nil)
		hangUp(w)
		return nil, false
	case err != nil:
		w.Header().Set("Connection", "close")
		writeRPCError(w, http.StatusBadRequest, "unreadable_body", "the request body could not be read", nil)
		hangUp(w)
		return nil, false
	}
	_ = rc.SetReadDeadline(time.Time{})
	return body, true
}

// readGrowing reads r to its end in chunks of 1, 2, 4, 8, then 16 KiB,
// none past a declared length (and a byte, to see the end), and joins them.
// A body that stalls holds what has arrived and at most one chunk more:
// io.ReadAll's doubling buffer held up to twice what arrived, and 1,000
// stalled 64 KiB bodies cost 116 MB.
func readGrowing(r io.Reader, declared int64) ([]byte, error) {
	var (
		parts [][]byte
		total int
		size  = 1 << 10
	)
	for {
		n := size
		if declared >= 0 {
			n = int(min(int64(n), declared-int64(total)+1))
		}
		part := make([]byte, n)
		got, err := io.ReadFull(r, part)
		parts, total = append(parts, part[:got]), total+got
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, err
		}
		size = min(2*size, 16<<10)
	}
	body := make([]byte, 0, total)
	for _, p := range parts {
		body = append(body, p...)
	}
	return body, nil
}

func (a *Adapter) maxBody() int64 { return orDefault(a.opts.MaxBodyBytes, DefaultMaxBodyBytes) }

func (a *Adapter) tooLarge(w http.ResponseWriter) {
	limit := a.maxBody()
	w.Header().Set("Connection", "close")
	writeRPCError(w, http.StatusRequestEntityTooLarge, "body_too_large",
		"the request body exceeds "+strconv.FormatInt(limit, 10)+" bytes; send one JSON-RPC message per POST", map[string]any{"limit_bytes": limit})
	hangUp(w)
}

// hangUp ends a refused exchange: the answer says Connection: close, and a
// read deadline already past stops net/http from draining the rest of the
// body first, which a stalled client would make it wait for.
func hangUp(w http.ResponseWriter) {
	_ = http.NewResponseController(w).SetReadDeadline(time.Now())
}

// writeRPCError answers a POST the adapter refuses before any message in it
// runs: a JSON-RPC Invalid Request error (id null, since no message was
// read as one) whose data names the adapter's typed code.
func writeRPCError(w http.ResponseWriter, status int, code, msg string, extra map[string]any) {
	data := map[string]any{"type": "invalid_request_error", "code": code}
	for k, v := range extra {
		data[k] = v
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": -32600, "message": msg, "data": data}})
}
