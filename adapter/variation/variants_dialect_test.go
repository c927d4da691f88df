package variation

import (
	"strings"
	"testing"

	"github.com/pdpp-connect/mcpcheck/adapter"
)

// Each dialect's ids read back as the record they name, refuse another
// dialect's ids, and take pdpp://record/ handles of their own ids.
func TestDialectIDs(t *testing.T) {
	ref := adapter.RecordRef{ConnectionID: "cin_work", Stream: "messages", RecordID: "a.b:c::d"}
	for _, d := range []*dialect{tsDialect, pyDialect, terseDialect} {
		id := d.ids.Format(ref)
		for _, in := range []string{id, adapter.RecordURIPrefix + strings.ReplaceAll(id, "%", "%25")} {
			if got, err := d.ids.Parse(in, ""); err != nil || got != ref {
				t.Errorf("%s: Parse(%q) = %v, %v; want %v", id, in, got, err, ref)
			}
		}
		if _, err := d.ids.Parse("cin_work/messages:m1", ""); err == nil {
			t.Errorf("%s: a reference-format id must be refused", id)
		}
		if _, err := d.ids.Parse(d.ids.Format(adapter.RecordRef{ConnectionID: "cin_work", Stream: "messages", RecordID: "../x"}), ""); err == nil {
			t.Errorf("%s: traversal must be refused", id)
		}
	}
}

// Numbers in the three formats.
func TestDialectNumbers(t *testing.T) {
	for _, c := range []struct {
		f    func(int64) string
		n    int64
		want string
	}{
		{groupedNumber(","), 60450, "60,450"}, {groupedNumber(" "), 1234567, "1 234 567"}, {groupedNumber(","), 999, "999"},
		{abbreviatedNumber, 60450, "60k (60,450)"}, {abbreviatedNumber, 68, "68"},
	} {
		if got := c.f(c.n); got != c.want {
			t.Errorf("%d: %q, want %q", c.n, got, c.want)
		}
	}
}

// A printed reference call reads back renamed, in each call syntax.
func TestDialectCalls(t *testing.T) {
	line := `record[0].body truncated read_record_field args={"field_path":"body","id":"x","offset_chars":0}`
	for d, want := range map[*dialect]string{
		tsDialect:    `read_record_field {"field":"body","offset":0,"record_id":"x"}`,
		pyDialect:    `read_record_field(handle="x", key="body", skip=0)`,
		terseDialect: `read_record_field from=0 path="body" ref="x"`,
	} {
		if got := d.callsIn(line); !strings.HasSuffix(got, want) {
			t.Errorf("got %q, want the suffix %q", got, want)
		}
	}
}
