package checks

import (
	"fmt"

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
