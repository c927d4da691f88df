package probe

import "github.com/pdpp-connect/mcpcheck/conformance"

// Shared streams: a stream name that resolves to several sources, which
// the ambiguity and scope checks need, and the skips for want of one.

// NoSharedStream is the skip reason of checks that need third-party data: a
// stream name shared by several sources.
const NoSharedStream = "no shared stream: the target's grant has no stream name that resolves to several sources (connectors or connections)"

// SkipNoSharedStream ends the check for want of a shared stream. Where
// mcpcheck read the RS's own schema and it shares none, the data the check
// needs is absent from the RS (one source per stream), not unread in the
// target: mcpcheck's fixture RS has it.
func SkipNoSharedStream(t *conformance.T) {
	if truth, ok := GrantTruth(t); ok {
		if _, shared := SharedStream(truth); !shared {
			t.SkipFor(conformance.CapFixture, "%s (the RS's own /v1/schema gives every stream of the grant one source; mcpcheck's fixture RS shares streams across connections)", NoSharedStream)
		}
	}
	t.Skipf("%s", NoSharedStream)
}

// SkipNoFanIn ends a search check for want of a word that finds hits in
// two or more connections; where the RS's own schema shows the grant spans
// one connection, that is absent from the RS's data, as for
// [SkipNoSharedStream].
func SkipNoFanIn(t *conformance.T) {
	const why = "no word from the target's records finds hits in two or more connections"
	if truth, ok := GrantTruth(t); ok {
		conns := map[string]bool{}
		for _, r := range truth {
			for _, c := range r.Connections {
				conns[c] = true
			}
		}
		if len(conns) <= 1 {
			t.SkipFor(conformance.CapFixture, "%s: the RS's own /v1/schema shows the grant spans %d connection(s); mcpcheck's fixture RS spans several", why, len(conns))
		}
	}
	t.Skipf("%s", why)
}

// SharedStream finds a stream name that resolves to more than one source:
// several rows, or one row over several connections.
func SharedStream(rows []SchemaRow) (string, bool) {
	for _, name := range StreamNames(rows) {
		named := RowsNamed(rows, name)
		if len(named) > 1 || len(named[0].Connections) > 1 {
			return name, true
		}
	}
	return "", false
}

// SingleSourceStream finds a stream name with exactly one row over at most
// one connection.
func SingleSourceStream(rows []SchemaRow) (string, bool) {
	for _, name := range StreamNames(rows) {
		if named := RowsNamed(rows, name); len(named) == 1 && len(named[0].Connections) <= 1 {
			return name, true
		}
	}
	return "", false
}
