package checks

import (
	"fmt"
	"slices"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/probe"
)

// S041 judges every compact schema document it reads (the index and
// schema(stream) of a shared and another stream) where it groups rows by
// connector: no top-level streams list repeating the nested rows (S041.1),
// and a stream's own granted_connections only where they differ from its
// connector's, compared by connection id (S041.2).
var s041 = &Check{ID: "S041", Slug: "compact-no-duplicate-streams", Mode: ModeBB, Tools: []string{"schema"}, Run: func(t *T) {
	c, rows := probe.IndexCall(t), probe.Grant(t)
	docs := map[string]map[string]any{"schema {}": probe.SchemaDoc(c)}
	names := probe.StreamNames(rows)
	if shared, ok := probe.SharedStream(rows); ok {
		names = append([]string{shared}, names...)
	}
	for _, name := range names {
		if len(docs) == 3 {
			break
		}
		what := fmt.Sprintf("schema {stream: %q}", name)
		if _, seen := docs[what]; seen {
			continue
		}
		if sc := probe.SchemaCall(t, dialect.Args{dialect.Stream: name}); !sc.IsError() {
			docs[what] = probe.SchemaDoc(sc)
		}
	}
	var conns []string
	for _, r := range rows {
		conns = append(conns, r.Connections...)
	}
	grouped := 0
	for what, doc := range docs {
		cs, _ := doc["connectors"].([]any)
		if len(cs) == 0 {
			continue
		}
		grouped++
		t.Clause(1, func() {
			rep := probe.RepeatedRows(doc)
			t.AssertWith(len(rep) == 0, func() (conformance.Witness, error) {
				return conformance.Witness{Kind: conformance.WitnessPresent, Fact: rep[0], In: []string{what + "'s structuredContent: in a top-level streams list and in connectors[].streams"}}, nil
			}, "%s lists rows %v both in a top-level streams list and in connectors[].streams", what, rep)
		})
		for _, cn := range cs {
			cm, _ := cn.(map[string]any)
			shared, ok := cm["granted_connections"].([]any)
			if !ok {
				// A connector that lists no connection of the grant (by
				// value, its stream rows aside) leaves its streams nothing
				// to inherit: keeping their own is all they can do.
				own := grantConns(withoutObjectLists(cm), conns)
				t.Clause(2, func() {
					if len(own) == 0 {
						t.Held()
						return
					}
					// The connector lists connections under a name of its
					// own: a stream row repeating that set, by value, does
					// not inherit it.
					for _, v := range cm {
						l, _ := v.([]any)
						for _, it := range l {
							row, ok := it.(map[string]any)
							if !ok {
								continue
							}
							t.Advise(!probe.SameSet(grantConns(row, conns), own),
								"%s: a stream row of connector %v repeats its connections %v; it should inherit them and keep its own only when they differ (the RS's compact view; no seed sentence asks it, so this is recommended)", what, cm["connector_key"], own)
						}
					}
				})
				continue
			}
			t.Clause(2, func() {
				// The connector's rows, wherever the document keeps them
				// (nested, or grouped by connector_key beside it).
				for _, r := range probe.SchemaRows(doc) {
					if r.Connector == nil || r.Connector["connector_key"] != cm["connector_key"] {
						continue
					}
					t.Advise(r.OwnConnections == nil || !probe.SameSet(probe.ConnectionIDs(r.OwnConnections), probe.ConnectionIDs(shared)),
						"%s: stream %v repeats its connector %v's granted_connections; it should inherit them and keep its own only when they differ (the RS's compact view; no seed sentence asks it, so this is recommended)", what, r.Name, cm["connector_key"])
				}
			})
		}
	}
	if grouped == 0 {
		t.NotApplicable("no compact schema result groups its streams under connectors[]")
	}
}}

// withoutObjectLists is m without its lists of objects (a connector's
// stream rows).
func withoutObjectLists(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		if l, ok := v.([]any); ok && len(l) > 0 {
			if _, obj := l[0].(map[string]any); obj {
				continue
			}
		}
		out[k] = v
	}
	return out
}

// grantConns are the grant's connection ids m holds, by value.
func grantConns(m map[string]any, conns []string) []string {
	var out []string
	for _, v := range probe.StringValues(m) {
		if slices.Contains(conns, v) && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}
