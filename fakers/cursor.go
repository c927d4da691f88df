package fakers

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

func pageLimit(raw, what string) (int, []any) {
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 {
		return 25, nil
	}
	if n > 100 {
		return 100, []any{map[string]any{"code": "limit_clamped", "param": "limit", "detail": map[string]any{"max_limit": 100, "requested_limit": n},
			"message": fmt.Sprintf("Requested limit=%d exceeds the maximum page size of 100; returned 100 %s per page. Page forward with the returned cursor.", n, what)}}
	}
	return n, nil
}

type cursor struct {
	Kind    string `json:"kind"`
	Session string `json:"session"`
	Order   string `json:"order"`
	Offset  int    `json:"offset"`
}

func encodeCursor(session string, off int, order string) string {
	b, _ := json.Marshal(cursor{Kind: "page", Session: session, Order: strings.ToUpper(order), Offset: off})
	return base64.StdEncoding.EncodeToString(b)
}

func decodeCursor(s, session, order string) (int, *apiError) {
	raw, err := base64.StdEncoding.DecodeString(s)
	var c cursor
	if err != nil || json.Unmarshal(raw, &c) != nil || c.Kind != "page" || c.Offset < 0 || c.Session != session {
		return 0, errf("invalid_cursor", "", "Malformed cursor")
	}
	if c.Order != strings.ToUpper(order) {
		return 0, errf("invalid_cursor", "", "Cursor order does not match request order")
	}
	return c.Offset, nil
}
