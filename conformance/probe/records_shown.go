package probe

import (
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
)

// Which fixture records an answer shows, by value: its ids beside their
// connections or values, or the values alone.

// RecordsShown are the fixture records an answer shows by value: those
// whose id stands in it as a token and whose connection or distinctive
// values it shows too, in fixture order.
func RecordsShown(t *conformance.T, c *conformance.Call, stream string) []RecordRef {
	return recordsShown(t, c.Strings(), stream)
}

// RecordsSeen are the fixture records an answer shows some distinctive
// value of, besides their id: strict enough to say a record of another
// stream is there (an id alone may be another record's reference to it).
func RecordsSeen(t *conformance.T, c *conformance.Call) []RecordRef {
	recs := FixtureRecords(t)
	strs := c.Strings()
	joined := strings.Join(strs, "\n")
	var out []RecordRef
	for _, r := range recs {
		if !strings.Contains(joined, r.Ref.ID) || !read.ContainsToken(joined, r.Ref.ID) {
			continue
		}
		if slices.ContainsFunc(distinct(t)[r.Ref], func(v string) bool { return strings.Contains(joined, v) && read.ContainsToken(joined, v) }) {
			out = append(out, r.Ref)
		}
	}
	return out
}

// ValuedIn are the fixture records of stream ("" for any) some of whose
// distinctive values text shows, ids aside: whose content a block is.
func ValuedIn(t *conformance.T, text, stream string) []RecordRef {
	var out []RecordRef
	for _, r := range FixtureRecords(t) {
		if stream != "" && r.Ref.Stream != stream {
			continue
		}
		if slices.ContainsFunc(distinct(t)[r.Ref], func(v string) bool { return strings.Contains(text, v) && read.ContainsToken(text, v) }) {
			out = append(out, r.Ref)
		}
	}
	return out
}

// RecordsShownIn is RecordsShown on a text alone: what a host that hides
// structuredContent shows of the records.
func RecordsShownIn(t *conformance.T, text, stream string) []RecordRef {
	return recordsShown(t, []string{text}, stream)
}

func recordsShown(t *conformance.T, strs []string, stream string) []RecordRef {
	recs := FixtureRecords(t)
	joined := strings.Join(strs, "\n")
	var out []RecordRef
	for _, r := range recs {
		if stream != "" && r.Ref.Stream != stream {
			continue
		}
		// By its id with its connection or one of its own values, or,
		// where it is named by an opaque handle, by its own values alone.
		byID := strings.Contains(joined, r.Ref.ID) && namesRecord(strs, r.Ref)
		values := 0
		for _, v := range distinct(t)[r.Ref] {
			if strings.Contains(joined, v) && read.ContainsToken(joined, v) {
				values++
			}
		}
		if byID && (values > 0 || read.Find(strs, read.Text(r.Ref.Conn)).Exact) || values > 0 && !byID && len(distinct(t)[r.Ref]) > 0 {
			out = append(out, r.Ref)
		}
	}
	return out
}

// namesRecord reports whether strs name ref by its id: as a value of its
// own (a structured id), or as a token of a line that names its connection
// close by (a text's "id=conn/stream:id"). An id inside another
// record's prose ("see note n003") names nothing.
func namesRecord(strs []string, ref RecordRef) bool {
	for _, s := range strs {
		if s == ref.ID {
			return true
		}
		if !strings.Contains(s, ref.ID) {
			continue
		}
		for _, line := range strings.Split(s, "\n") {
			if read.ContainsToken(line, ref.ID) && near(line, ref.ID, ref.Conn, 48) {
				return true
			}
		}
	}
	return false
}

// near reports whether a and b stand within n bytes of each other in s.
func near(s, a, b string, n int) bool {
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], a)
		if j < 0 {
			return false
		}
		at := i + j
		lo, hi := max(0, at-n-len(b)), min(len(s), at+len(a)+n+len(b))
		if strings.Contains(s[lo:hi], b) {
			return true
		}
		i = at + len(a)
	}
	return false
}
