package adapter

import (
	"context"
	"fmt"
	"net/url"

	"example.com/pdppadapter-t/internal/ojson"
	"example.com/pdppadapter-t/internal/rs"
)

// ambiguityListCap bounds available_connections in ambiguity errors.
const ambiguityListCap = 12

type candidate struct {
	ConnectionID string
	ConnectorKey string
	DisplayName  string
	Stream       string
}

// ambiguityError builds the typed ambiguous_connection error. It is built
// from package membership (the schema document), never from per-connection
// probes.
func ambiguityError(grantID, stream string, cands []candidate, tool string, retryArgs map[string]any) *toolError {
	msg := fmt.Sprintf("Stream %q is served by %d configured connections and this %s call did not say which one. Pass connection_id.", stream, len(cands), tool)
	e := newErr("ambiguous_connection", "invalid_request_error", msg)
	e.Status = 409
	e.Param = "connection_id"
	e.RetryWith = "connection_id"
	var list []any
	for i, c := range cands {
		if i == ambiguityListCap {
			break
		}
		o := ojson.NewObject()
		o.Set("connection_id", c.ConnectionID)
		if c.ConnectorKey != "" {
			o.Set("connector_key", c.ConnectorKey)
		}
		if grantID != "" {
			o.Set("grant_id", grantID)
		}
		if c.DisplayName != "" {
			o.Set("display_name", c.DisplayName)
		}
		if c.Stream != "" {
			o.Set("stream", c.Stream)
		}
		list = append(list, o)
	}
	e.with("available_connections", orEmpty(list))
	e.with("available_connection_count", len(cands))
	truncated := len(cands) > ambiguityListCap
	e.with("available_connections_truncated", truncated)
	if truncated {
		e.with("available_connections_omitted", len(cands)-ambiguityListCap)
	}
	e.with("discovery_hint", "Call schema() for the full granted connection index before retrying with connection_id.")
	if len(cands) > 0 {
		ex := ojson.NewObject()
		for k, v := range retryArgs {
			ex.Set(k, v)
		}
		ex.Set("connection_id", cands[0].ConnectionID)
		e.with("retry_example", tool+" "+compactJSON(sortedObj(ex)))
	}
	e.Hint = "Retry the same call with connection_id set to one of the available connections."
	return e
}

func sortedObj(o *ojson.Object) *ojson.Object {
	return ojson.FromPlain(o.M)
}

func candidatesFromRows(rows []*streamRow, stream string) []candidate {
	var out []candidate
	seen := map[string]bool{}
	for _, r := range rows {
		for _, c := range r.Connections {
			if seen[c.ID] {
				continue
			}
			seen[c.ID] = true
			out = append(out, candidate{ConnectionID: c.ID, ConnectorKey: r.ConnectorKey, DisplayName: c.Name, Stream: stream})
		}
	}
	return out
}

func (a *Adapter) ambiguousFromRows(doc *schemaDoc, rows []*streamRow, stream, tool string, retryArgs map[string]any) *toolError {
	return ambiguityError(doc.GrantID, stream, candidatesFromRows(rows, stream), tool, retryArgs)
}

// ambiguityFromRS converts an RS 409 into the adapter's enriched shape,
// adding connector_key and grant_id from one scoped schema read.
func (a *Adapter) ambiguityFromRS(ctx context.Context, tok string, re *rs.Error, stream, tool string, retryArgs map[string]any) *toolError {
	var cands []candidate
	grant := ""
	doc, err := a.streamSchema(ctx, tok, stream, "")
	idx := map[string]connSource{}
	if err == nil {
		grant = doc.GrantID
		idx = doc.connectionIndex()
	}
	for _, v := range asArr(toOrdered(re.Extra["available_connections"])) {
		o, ok := v.(*ojson.Object)
		if !ok {
			continue
		}
		c := candidate{ConnectionID: o.Str("connection_id"), ConnectorKey: o.Str("connector_key"), DisplayName: o.Str("display_name"), Stream: stream}
		if src, ok := idx[c.ConnectionID]; ok {
			if c.ConnectorKey == "" {
				c.ConnectorKey = src.ConnectorKey
			}
			if c.DisplayName == "" {
				c.DisplayName = src.DisplayName
			}
		}
		if c.ConnectionID != "" {
			cands = append(cands, c)
		}
	}
	if len(cands) == 0 && err == nil {
		cands = candidatesFromRows(doc.rowsFor(stream, ""), stream)
	}
	e := ambiguityError(grant, stream, cands, tool, retryArgs)
	if re.Message != "" {
		e.Message = re.Message + " " + fmt.Sprintf("(%d candidate connections.)", len(cands))
	}
	e.Source = "resource_server"
	e.RequestID = re.RequestID
	e.with("rs_code", re.Code)
	return e
}

// enrichAvailable completes RS-provided available_connections lists (which
// carry only connection_id/display_name) with connector_key and grant_id
// from one compact schema read, and applies the list cap.
func (a *Adapter) enrichAvailable(ctx context.Context, tok string, e *toolError) {
	if e == nil || e.Extra == nil {
		return
	}
	list := asArr(e.Extra.M["available_connections"])
	if len(list) == 0 {
		return
	}
	need := false
	for _, v := range list {
		if o, ok := v.(*ojson.Object); ok && (o.Str("connector_key") == "" || o.Str("grant_id") == "") {
			need = true
			break
		}
	}
	if !need {
		return
	}
	q := url.Values{}
	q.Set("view", "compact")
	doc, err := a.fetchSchema(ctx, tok, q)
	var idx map[string]connSource
	if err == nil {
		idx = doc.connectionIndex()
	}
	var out []any
	for i, v := range list {
		o, ok := v.(*ojson.Object)
		if !ok {
			continue
		}
		if i == ambiguityListCap {
			break
		}
		n := ojson.NewObject()
		n.Set("connection_id", o.Str("connection_id"))
		key := o.Str("connector_key")
		name := o.Str("display_name")
		if src, ok := idx[o.Str("connection_id")]; ok {
			if key == "" {
				key = src.ConnectorKey
			}
			if name == "" {
				name = src.DisplayName
			}
		}
		if key != "" {
			n.Set("connector_key", key)
		}
		if doc != nil && doc.GrantID != "" {
			n.Set("grant_id", doc.GrantID)
		}
		if name != "" {
			n.Set("display_name", name)
		}
		for _, k := range o.Keys {
			if !n.Has(k) {
				n.Set(k, o.M[k])
			}
		}
		out = append(out, n)
	}
	e.Extra.Set("available_connections", out)
	e.Extra.Set("available_connection_count", len(list))
	e.Extra.Set("available_connections_truncated", len(list) > ambiguityListCap)
	if len(list) > ambiguityListCap {
		e.Extra.Set("available_connections_omitted", len(list)-ambiguityListCap)
	}
	if !e.Extra.Has("discovery_hint") {
		e.Extra.Set("discovery_hint", "Call schema() for the full granted connection index before retrying with connection_id.")
	}
}
