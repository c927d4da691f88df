package adapter

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/pdpp-connect/mcpcheck/adapter/rsclient"
	json "github.com/segmentio/encoding/json"
)

// A streamScope is what the live compact schema says about one stream name,
// optionally narrowed to one connection: whether it answered, the rows'
// expand advertisement, and the connections the grant holds for it.
type streamScope struct {
	ok      bool              // GET /v1/schema answered with a document
	authErr error             // the RS refused the bearer: surfaced, never worked around
	found   bool              // the document has a row of the stream
	expand  bool              // some row advertises expand_capabilities
	roles   map[string]string // field -> declared display role (x_pdpp_role)
	keys    []string          // the stream's declared primary key fields
	grantID string
	conns   []member
}

// A member is one connection that serves a stream.
type member struct {
	ConnectionID string `json:"connection_id"`
	ConnectorKey string `json:"connector_key,omitempty"`
	GrantID      string `json:"grant_id,omitempty"`
	DisplayName  string `json:"display_name,omitempty"`
	Stream       string `json:"stream"`
}

// scope fetches GET /v1/schema?view=compact&stream=…[&connection_id=…] once
// per call: the expand gate and the source check both read it, and neither
// may serve a stale copy (seed 000: enforcement follows the live schema).
func (c *call) scope(stream, conn string) streamScope {
	key := stream + "\x00" + conn
	if sc, ok := c.scopes[key]; ok {
		return sc
	}
	q := url.Values{"view": {"compact"}, "stream": {stream}}
	setIf(q, "connection_id", conn)
	sc := streamScope{}
	body, _, err := c.get("/v1/schema", q)
	var re *rsclient.Error
	switch {
	case err == nil:
		sc = parseScope(body, stream)
	case errors.As(err, &re) && (re.HTTPStatus == http.StatusUnauthorized || re.HTTPStatus == http.StatusForbidden):
		sc.authErr = err
	}
	if c.scopes == nil {
		c.scopes = map[string]streamScope{}
	}
	c.scopes[key] = sc
	return sc
}

func parseScope(body json.RawMessage, stream string) streamScope {
	var doc struct {
		Bearer struct {
			GrantID string `json:"grant_id"`
		} `json:"bearer"`
		Connectors []struct {
			ConnectorKey       string                       `json:"connector_key"`
			GrantedConnections []member                     `json:"granted_connections"`
			Streams            []map[string]json.RawMessage `json:"streams"`
		} `json:"connectors"`
		Streams []map[string]json.RawMessage `json:"streams"`
	}
	if json.Unmarshal(body, &doc) != nil {
		return streamScope{}
	}
	sc := streamScope{ok: true, grantID: doc.Bearer.GrantID}
	seen := map[string]bool{}
	visit := func(row map[string]json.RawMessage, key string, inherited []member) {
		var name string
		for _, k := range []string{"name", "stream", "stream_name"} {
			if json.Unmarshal(row[k], &name) == nil && name == stream {
				break
			}
			name = ""
		}
		if name == "" {
			return
		}
		sc.found = true
		var caps []json.RawMessage
		if json.Unmarshal(row["expand_capabilities"], &caps) == nil && len(caps) > 0 {
			sc.expand = true
		}
		var pk []string
		if json.Unmarshal(row["primary_key"], &pk) == nil {
			for _, k := range pk {
				if !slices.Contains(sc.keys, k) {
					sc.keys = append(sc.keys, k)
				}
			}
		}
		var fields map[string]json.RawMessage
		_ = json.Unmarshal(row["field_capabilities"], &fields)
		for f, v := range fields {
			if role := declaredRole(v); role != "" {
				if sc.roles == nil {
					sc.roles = map[string]string{}
				}
				sc.roles[f] = role
			}
		}
		var rowKey string
		if json.Unmarshal(row["connector_key"], &rowKey) == nil && rowKey != "" {
			key = rowKey
		}
		var conns []member
		if json.Unmarshal(row["granted_connections"], &conns) != nil || conns == nil {
			var id, dn string
			if json.Unmarshal(row["connection_id"], &id) == nil && id != "" {
				_ = json.Unmarshal(row["display_name"], &dn)
				conns = []member{{ConnectionID: id, DisplayName: dn}}
			} else {
				conns = inherited
			}
		}
		for _, m := range conns {
			if m.ConnectionID == "" || seen[m.ConnectionID] {
				continue
			}
			seen[m.ConnectionID] = true
			sc.conns = append(sc.conns, member{ConnectionID: m.ConnectionID, ConnectorKey: key, GrantID: sc.grantID, DisplayName: m.DisplayName, Stream: stream})
		}
	}
	for _, row := range doc.Streams {
		visit(row, "", nil)
	}
	for _, cn := range doc.Connectors {
		for _, row := range cn.Streams {
			visit(row, cn.ConnectorKey, cn.GrantedConnections)
		}
	}
	return sc
}

// requireSource makes a source-required read (query_records, fetch,
// read_record_field) name its connection when its stream is served by more
// than one. The error is built from grant membership, one schema lookup,
// with no probe of any child read (seed 001). When the schema cannot be
// read, the RS decides.
func (c *call) requireSource(stream, conn string) error {
	if conn != "" {
		return nil
	}
	sc := c.scope(stream, "")
	if sc.authErr != nil {
		return sc.authErr
	}
	if !sc.ok || len(sc.conns) <= 1 {
		return nil
	}
	list := sc.conns[:min(c.t.AmbiguityListLimit, len(sc.conns))]
	extra := map[string]any{"retry_with": "connection_id", "available_connections": list, "available_connection_count": len(sc.conns),
		"discovery_hint": "Call `schema` for the full granted connection index before retrying with `connection_id`."}
	if omitted := len(sc.conns) - len(list); omitted > 0 {
		extra["available_connections_truncated"], extra["available_connections_omitted"] = true, omitted
	}
	ids := make([]string, 0, 3)
	for _, mb := range list[:min(3, len(list))] {
		ids = append(ids, mb.ConnectionID)
	}
	return &toolError{Code: "ambiguous_connection", Param: "connection_id", Extra: extra,
		Message: "Stream '" + stream + "' is served by " + strconv.Itoa(len(sc.conns)) + " connections; retry with connection_id set to one of available_connections (e.g. " + strings.Join(ids, ", ") + ")."}
}

// connectorKey is the connector key of connection conn as the grant's
// schema names it, the key schema and search show. A record read may name
// its connector otherwise (the real RS's record detail gives the manifest
// URI); recordKey is used only when the schema does not say.
func (sc streamScope) connectorKey(conn, recordKey string) string {
	for _, m := range sc.conns {
		if m.ConnectorKey != "" && m.ConnectionID == conn {
			return m.ConnectorKey
		}
	}
	return recordKey
}

// declaredRole reads role=<r> from a compact flag string, or "role" from a
// full capability object.
func declaredRole(v json.RawMessage) string {
	var flags string
	if json.Unmarshal(v, &flags) == nil {
		for _, tok := range strings.Split(flags, ",") {
			if r, ok := strings.CutPrefix(tok, "role="); ok {
				return r
			}
		}
		return ""
	}
	var obj struct {
		Role string `json:"role"`
	}
	_ = json.Unmarshal(v, &obj)
	return obj.Role
}

// fieldWithRole names the field that declares role, if exactly one does.
func (sc streamScope) fieldWithRole(role string) string {
	found := ""
	for f, r := range sc.roles {
		if r == role {
			if found != "" {
				return ""
			}
			found = f
		}
	}
	return found
}

// checkRead makes the checks a record read makes against the live schema
// before it reaches the RS: the expand gate, when it expands, then the
// source check.
func (c *call) checkRead(stream, conn string, expand []string) error {
	if len(expand) > 0 {
		if err := c.expandGate(stream, conn, expand); err != nil {
			return err
		}
	}
	return c.requireSource(stream, conn)
}

// checkList makes query_records' checks: checkRead's, except that under
// UnscopedListsFanIn a read without connection_id goes to the RS, which
// fans in. A changes feed needs one source either way (the RS binds its
// bookmark to one connection): it gets the ambiguity error.
func (c *call) checkList(stream, conn string, changes bool, expand []string) error {
	if c.t.UnscopedLists != UnscopedListsFanIn || changes {
		return c.checkRead(stream, conn, expand)
	}
	if len(expand) > 0 {
		return c.expandGate(stream, conn, expand)
	}
	return nil
}

// requestedRelations are the relations a record read names: its expand
// values and its expand_limit keys, which seed 000 gates alike.
func requestedRelations(q url.Values) []string {
	var limited []string
	for k := range q {
		if rel, ok := strings.CutPrefix(k, "expand_limit["); ok && strings.HasSuffix(rel, "]") {
			if rel = strings.TrimSuffix(rel, "]"); !slices.Contains(q["expand"], rel) {
				limited = append(limited, rel)
			}
		}
	}
	slices.Sort(limited)
	return append(slices.Clone(q["expand"]), limited...)
}

// expandGate rejects expand on a stream whose live compact schema advertises
// no expand_capabilities (seed 000). Unless Tuning.ExpandGate says
// otherwise, it leaves the decision to the RS when the schema is
// unavailable or the stream is not found.
func (c *call) expandGate(stream, connectionID string, rels []string) error {
	if c.t.ExpandGate == ExpandGateOff {
		return nil
	}
	sc := c.scope(stream, connectionID)
	switch {
	case sc.authErr != nil:
		return sc.authErr
	case !sc.ok && c.t.ExpandGate == ExpandGateFailClosed:
		return &toolError{Code: "invalid_expand", Param: "expand", Message: "expand_capabilities of stream '" + stream + "' are unknown (GET /v1/schema failed)"}
	case !sc.ok || !sc.found || sc.expand: // fail open: the RS decides
		return nil
	}
	msg := "Stream '" + stream + "' has no advertised expand_capabilities. Relations requested: " + strings.Join(rels, ",") +
		". Consult GET /v1/schema (expand_capabilities) before passing expand; unadvertised relations are rejected."
	return &toolError{Code: "invalid_expand", Param: "expand", Message: msg}
}
