package adapter

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	json "github.com/segmentio/encoding/json"
)

// callerKey carries, in an /mcp request's context, a context that ends
// when the caller goes away or cancels the request from another POST. The
// SDK's stateless handler links neither to the tool call: it detaches the
// call's context from the request, and every POST is its own session.
type callerKey struct{}

var errCancelled = errors.New("the client cancelled the request")

// withCaller ends a tool call's context with its caller's: an abandoned
// call would otherwise hold its RS request until the RS answered or timed out.
func withCaller(h mcp.ToolHandler) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		caller, ok := ctx.Value(callerKey{}).(context.Context)
		if !ok {
			return h(ctx, req)
		}
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		stop := context.AfterFunc(caller, func() { cancel(context.Cause(caller)) })
		defer stop()
		res, err := h(ctx, req)
		if caller.Err() != nil {
			return adapterError("request_cancelled", "the client went away or cancelled this request"), nil
		}
		return res, err
	}
}

// withCallerContext gives an /mcp request the caller context withCaller
// reads: it ends with the request, or when a notifications/cancelled for
// this call arrives. The returned function releases it.
func (a *Adapter) withCallerContext(r *http.Request, body []byte) (*http.Request, func()) {
	caller, cancel := context.WithCancelCause(r.Context())
	release := func() { cancel(nil) }
	if done := a.trackCall(r, body, cancel); done != nil {
		release = func() { done(); cancel(nil) }
	}
	return r.WithContext(context.WithValue(r.Context(), callerKey{}, caller)), release
}

// trackCall registers a call (a message with an id) under its bearer and
// id, so that a notifications/cancelled for it, which arrives in another
// POST, can cancel it; such a notification cancels here. It returns the
// call's unregistering function, or nil.
func (a *Adapter) trackCall(r *http.Request, body []byte, cancel context.CancelCauseFunc) func() {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil {
		return nil // the SDK answers malformed messages
	}
	tok, _ := bearer(r.Header.Get("Authorization"))
	if msg.Method == "notifications/cancelled" {
		a.calls.cancel(callKey(tok, msg.Params.RequestID))
		return nil
	}
	if msg.Method == "" {
		return nil
	}
	return a.calls.add(callKey(tok, msg.ID), cancel, orDefault(a.opts.MaxConns, DefaultMaxConns))
}

// callKey names a call by its bearer's hash and its JSON-RPC id, so only
// the bearer that made a call can cancel it; "" when id is no id.
func callKey(token string, id json.RawMessage) string {
	id = bytes.TrimSpace(id)
	var s string
	switch {
	case len(id) == 0 || string(id) == "null":
		return ""
	case id[0] == '"' && json.Unmarshal(id, &s) == nil:
		s = "s" + s
	default:
		if n, err := strconv.ParseInt(string(id), 10, 64); err == nil {
			s = "n" + strconv.FormatInt(n, 10)
		} else {
			s = "r" + string(id)
		}
	}
	h := sha256.Sum256([]byte(token))
	return string(h[:]) + s
}

// callRegistry holds the in-flight calls by callKey. It is bounded (by the
// connection cap): past the bound a call still runs, and still ends with
// its caller's connection, but a notification cannot reach it.
type callRegistry struct {
	mu    sync.Mutex
	n     int
	calls map[string][]*inflightCall
}

type inflightCall struct{ cancel context.CancelCauseFunc }

func (c *callRegistry) add(key string, cancel context.CancelCauseFunc, max int) func() {
	if key == "" {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n >= max {
		return nil
	}
	if c.calls == nil {
		c.calls = map[string][]*inflightCall{}
	}
	call := &inflightCall{cancel}
	c.calls[key] = append(c.calls[key], call)
	c.n++
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		rest := slices.DeleteFunc(c.calls[key], func(x *inflightCall) bool { return x == call })
		c.n--
		if len(rest) == 0 {
			delete(c.calls, key)
		} else {
			c.calls[key] = rest
		}
	}
}

func (c *callRegistry) cancel(key string) {
	if key == "" {
		return
	}
	c.mu.Lock()
	found := slices.Clone(c.calls[key])
	c.mu.Unlock()
	for _, call := range found {
		call.cancel(errCancelled)
	}
}
