package read

import "testing"

// Two answers that differ only in a random request id read the same,
// even when a short fixture value happens to sit inside one id.
func TestNormalizeValuesMasksIdsBeforeContent(t *testing.T) {
	content := []string{"66", "Quarterly budget"}
	a := `{"groups":[{"count":41,"key":"2026-01-01"}],"request_id":"req_db66bd0e6dfa81b3"}`
	b := `{"groups":[{"count":41,"key":"2026-01-01"}],"request_id":"req_9a425ed6418ff3f0"}`
	if na, nb := NormalizeValues(a, content), NormalizeValues(b, content); na != nb {
		t.Errorf("answers differing only in request_id normalise apart:\n%s\n%s", na, nb)
	}
	c := `{"groups":[{"count":40,"key":"2026-01-01"}],"request_id":"req_9a425ed6418ff3f0"}`
	if NormalizeValues(b, content) == NormalizeValues(c, content) {
		t.Errorf("a different count must still read differently")
	}
}
