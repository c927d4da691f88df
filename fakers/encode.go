package fakers

import (
	"bytes"
	"encoding/json"
	"net/http"

	segjson "github.com/segmentio/encoding/json"
)

// rawJSON is a body encoded already (a cached answer).
type rawJSON []byte

// encodeJSON writes what encoding/json's Encoder writes (sorted keys, no
// HTML escaping, a final newline), but trusts the cached record encodings
// instead of re-validating them: compacting a 60 KB body on every page was
// most of the fixture's CPU.
func encodeJSON(body any) rawJSON {
	b, err := segjson.Append(nil, body, segjson.SortMapKeys|segjson.TrustRawMessage)
	if err != nil {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(body)
		return buf.Bytes()
	}
	return append(b, '\n')
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	raw, ok := body.(rawJSON)
	if !ok {
		raw = encodeJSON(body)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(raw)
}
