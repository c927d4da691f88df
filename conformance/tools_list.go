package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/conformance/internal/wiretap"
)

// HandshakeLimit bounds the bytes of initialize and every tools/list page
// together. The tap bounds each message; this bounds their sum, which the
// tap keeps for footprints and goldens: 100 pages of 31 MB took mcpcheck
// to 3 GB.
const HandshakeLimit = 32 << 20

// maxToolsPages bounds tools/list pages, however small.
const maxToolsPages = 100

// listToolsRaw pages through tools/list and returns each tool's raw bytes.
// Past limit bytes (initialize's answer included) it stops with a
// TargetError.
func listToolsRaw(ctx context.Context, cs *mcp.ClientSession, tap *wiretap.Tap, limit int) ([]json.RawMessage, error) {
	var (
		out    []json.RawMessage
		cursor string
		total  int
	)
	if ex, ok := tap.Last("initialize"); ok {
		total = len(ex.Response)
	}
	for page := 1; page <= maxToolsPages; page++ {
		res, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, err
		}
		ex, ok := tap.Last("tools/list")
		if !ok {
			return nil, errors.New("tools/list: the wire tap saw no result")
		}
		if total += len(ex.Response); total > limit {
			return nil, &TargetError{Unreachable: true, Reason: fmt.Sprintf("tools/list: more than %s across pages (%d pages and initialize read; mcpcheck stops there)", megabytes(limit), page)}
		}
		var body struct {
			Tools []json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(ex.Result, &body); err != nil {
			return nil, fmt.Errorf("tools/list result: %w", err)
		}
		out = append(out, body.Tools...)
		if res.NextCursor == "" {
			return out, nil
		}
		cursor = res.NextCursor
	}
	return nil, &TargetError{Unreachable: true, Reason: fmt.Sprintf("tools/list: more than %d pages", maxToolsPages)}
}

// megabytes renders n bytes as binary megabytes ("32 MB").
func megabytes(n int) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MB", n>>20)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}
