package conformance

import (
	"bytes"
	"encoding/json"

	"github.com/pdpp-connect/mcpcheck/conformance/redact"
)

// A Redactor removes every token mcpcheck was lent from what it prints, in
// any form a target could echo it in: another case, base64 at any
// alignment, \u-escaped, %-encoded, or a mix (see internal/redact).
type Redactor = redact.Redactor

// NewRedactor returns a Redactor that knows no token yet: give it to
// [TargetSpec.Redactor], and Open adds every token it lends the target.
func NewRedactor() *Redactor { return redact.New() }

// lendTokens adds the fixture RS's tokens to the target's redactor: all
// of them may reach the adapter, and through it the output.
func (t *Target) lendTokens(tokens ...string) { t.redactor.Add(tokens...) }

// redactJSON redacts every string and key of a JSON document, then
// normalises it: a golden keeps its form, and no token.
func (t *Target) redactJSON(raw []byte) ([]byte, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	t.redactor.Value(&v)
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return Normalize(b)
}
