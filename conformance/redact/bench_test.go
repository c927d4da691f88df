package redact

import (
	"strings"
	"testing"
)

func BenchmarkString(b *testing.B) {
	r := New("pdpp_default_client", "pdpp_default_owner", "pdpp_default_client_expired", "pdpp_default_client_revoked",
		"pdpp_default_client_malformed", "pdpp_default_client_foreign", "fixturectl_acd3ea5b451f848c0eec9c35f7b69e242f15f32c71b95de9",
		"Mcpcheck-Client-7f3a9c21e4", "Mcpcheck-Owner-51be0d9a7c", "Mcpcheck-Expired-2c84f1e0b6")
	text := strings.Repeat(`            call: search {"q":"a","limit":5} → isError=false hits: 3 \u00e9 50% "x" msg_0001 `+"\n", 5000)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for range b.N {
		_ = r.String(text)
	}
}
