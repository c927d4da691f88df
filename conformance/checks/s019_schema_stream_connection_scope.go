package checks

import (
	"net/url"
	"regexp"
	"strings"

	. "github.com/onsi/gomega"
)

// scopeSupport is what seed 001 wants in the text of schema(stream,
// connection_id) besides fields: the arguments a next read can use.
var scopeSupport = []struct {
	what string
	re   *regexp.Regexp
}{
	{"projection", regexp.MustCompile(`(?i)\bprojection\b|\bproject(ed)?\s+fields\b`)},
	{"sort", regexp.MustCompile(`(?i)\bsort`)},
	{"count", regexp.MustCompile(`(?i)\bcount\s*[=:]\s*[a-z|]*(exact|estimated)|\b(exact|estimated)\s+counts?\b`)},
	{"expand relations", regexp.MustCompile(`(?i)\bexpand`)},
	{"search modes", regexp.MustCompile(`(?i)\b(search|lexical|semantic)\b`)},
	{"aggregation", regexp.MustCompile(`(?i)aggregat`)},
}

var s019 = &Check{ID: "S019", Slug: "schema-stream-connection-scope", Mode: ModeBBD, Run: func(t *T) {
	_, index := schemaIndex(t)
	name, ok := sharedStream(index)
	if !ok {
		t.Skipf("%s", noSharedStream)
	}
	row := rowsNamed(index, name)[0]
	t.Expect(row.Connections).NotTo(BeEmpty(), "the index must name the connections of stream %q", name)
	conn := row.Connections[0]
	c, rows := scopedSchema(t, map[string]any{"stream": name, "connection_id": conn})
	t.Expect(rows).To(HaveLen(1), "schema(stream, connection_id) must return the matching stream row only")
	t.Expect(rows[0].Connections).To(Equal([]string{conn}), "the row must hold capabilities for connection %s only", conn)

	text := c.Text()
	for _, want := range []string{conn, row.ConnectorKey, name} {
		t.Expect(containsToken(text, want)).To(BeTrue(), "the text must carry %q:\n%s", want, clipText(text, 800))
	}
	if label := firstNonEmptyString(row.ConnNames[conn], rows[0].DisplayName); label != "" {
		t.Expect(strings.Contains(text, label) || strings.Contains(text, strings.ReplaceAll(label, " ", "_"))).To(BeTrue(),
			"the text must carry the display label %q", label)
	}
	if fields := fieldNames(rows[0]); len(fields) > 0 {
		expectFieldSummaries(t, text, fields, "stream %q on %s", name, conn)
	}
	// The legend names sort and aggregation for every stream; the row must too.
	own := legendLineRe.ReplaceAllString(text, "")
	for _, s := range scopeSupport {
		t.Expect(s.re.MatchString(own)).To(BeTrue(), "the stream row, legend aside, must state %s support for the next read:\n%s", s.what, clipText(own, 800))
	}
	if t.Target.Has(CapControlledRS) {
		t.Expect(rsSawSchemaScope(t, name, conn)).To(BeTrue(), "the adapter must forward stream and connection_id to GET /v1/schema and let the RS narrow")
	}
}}

func rsSawSchemaScope(t *T, stream, conn string) bool {
	for _, r := range t.RS().RequestsTo("/v1/schema") {
		q, _ := url.ParseQuery(r.RawQuery)
		if q.Get("stream") == stream && q.Get("connection_id") == conn {
			return true
		}
	}
	return false
}

func firstNonEmptyString(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
