package hostile

import (
	"io"
	"net/http"
	"strings"
)

// PaddedAnswers, HTTP only, answers every tools/call at once with a
// plausible result padded to Server.Pad bytes (PadBytes when zero): a
// target that tries to grow its client's memory one answer at a time.
const PaddedAnswers = "padded-answers"

// PadBytes is PaddedAnswers' default padding per answer.
const PadBytes = 8 << 20

// writePadded writes a tools/call answer padded to s.Pad bytes. The
// padding is built once per server, so the server adds little to the heap
// of a test that measures its client's.
func (s *Server) writePadded(w http.ResponseWriter, id []byte) {
	s.padOnce.Do(func() {
		n := s.Pad
		if n == 0 {
			n = PadBytes
		}
		s.padding = strings.Repeat("x", n)
	})
	w.Header().Set("Content-Type", "application/json")
	for _, part := range []string{`{"jsonrpc":"2.0","id":`, string(id), `,"result":{"content":[{"type":"text","text":"`, s.padding,
		`"}],"structuredContent":{"data":{"padding":"`, s.padding[:len(s.padding)/4], `"}},"isError":false}}`} {
		if _, err := io.WriteString(w, part); err != nil {
			return
		}
	}
}
