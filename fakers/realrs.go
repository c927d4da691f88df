package fakers

// What a RealRS fixture serves beyond docs/RS-CONTRACT.md §1–§16, as the reference
// RS (PDP-Connect/pdpp fceb768, ../shared/realrs) does for client tokens.
// The ids M1–M10 are those of ../shared/realrs/README.md.

// referenceNextStep is the reference RS's next_step on a 401 (M8).
const referenceNextStep = "Fetch error.resource_metadata, then follow pdpp_agent_discovery.cli when token completion is available; otherwise request a scoped client grant without using an owner bearer token."

// manifestURI is a connector's manifest URI: the reference RS names the
// connector by it in schema source.id and record-detail connector_key (M4).
func manifestURI(connector string) string { return "https://registry.pdpp.dev/connectors/" + connector }

// referenceStreamEntry is a client's stream row on the reference RS: every
// field only declared, no types, roles, capabilities, sort, relationships
// or views, primary_key empty (M2, M9). compact keeps name, primary_key and
// the two capability maps; full adds the grant's instance ids and its
// connections.
func referenceStreamEntry(s *Stream, granted []string, instanceIDs []string, conns []Connection, compact bool) map[string]any {
	props, caps := map[string]any{}, map[string]any{}
	no := func() map[string]any { return map[string]any{"declared": false, "usable": false} }
	for _, f := range granted {
		if s.Field(f) == nil {
			continue
		}
		props[f] = map[string]any{}
		if compact {
			caps[f] = "declared"
			continue
		}
		agg := map[string]any{}
		for _, op := range []string{"count_distinct", "group_by", "group_by_time", "max", "min", "sum"} {
			agg[op] = no()
		}
		caps[f] = map[string]any{"granted": true, "schema": map[string]any{}, "lexical_search": no(), "semantic_search": no(), "aggregation": agg}
	}
	e := map[string]any{"name": s.Name, "primary_key": []any{}, "field_capabilities": caps, "expand_capabilities": []any{},
		"granted_connections": grantedConnections(conns)}
	if compact {
		return e
	}
	e["object"] = "stream_metadata"
	e["schema"] = map[string]any{"type": "object", "additionalProperties": false, "properties": props}
	e["query"], e["relationships"], e["views"] = map[string]any{}, []any{}, []any{}
	e["instance_ids"] = instanceIDs
	e["freshness"] = map[string]any{"status": "current", "captured_at": "2026-07-05T00:00:00Z"}
	return e
}
