package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A broad grant: 3 connectors x 80 streams. Global schema must list every
// stream name in text and stay bounded as a whole result.
func TestGlobalSchemaIndexBounded(t *testing.T) {
	rs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var conns []any
		for c := 0; c < 3; c++ {
			var streams []any
			for i := 0; i < 80; i++ {
				fc := map[string]any{}
				for f := 0; f < 30; f++ {
					fc[fmt.Sprintf("field_%d", f)] = "t=string,lex"
				}
				streams = append(streams, map[string]any{"name": fmt.Sprintf("stream_%d_%d", c, i), "record_count": i,
					"field_capabilities": fc, "granted_connections": []any{map[string]any{"connection_id": fmt.Sprintf("cin_%d", c)}}})
			}
			conns = append(conns, map[string]any{"connector_key": fmt.Sprintf("conn%d", c), "streams": streams})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"object": "schema", "bearer": map[string]any{"token_kind": "client", "grant_id": "g"}, "connectors": conns})
	}))
	defer rs.Close()
	c, _ := NewRSClient(rs.URL)
	s := &Server{rs: c, logger: log.New(io.Discard, "", 0)}
	res := s.callTool(context.Background(), "tok", "schema", args{})
	if res["isError"] != false {
		t.Fatalf("error: %v", res)
	}
	text := res["content"].([]any)[0].(map[string]any)["text"].(string)
	for c := 0; c < 3; c++ {
		for i := 0; i < 80; i++ {
			if !strings.Contains(text, fmt.Sprintf("stream_%d_%d", c, i)) {
				t.Fatalf("stream_%d_%d missing from text", c, i)
			}
		}
	}
	whole, _ := json.Marshal(res)
	if len(whole) > 40000 {
		t.Fatalf("global schema result is %d bytes", len(whole))
	}
	if strings.Contains(string(whole), "field_3") {
		t.Fatal("global index must not carry field capabilities")
	}
	if !strings.Contains(text, "capped") {
		t.Fatal("cap note missing")
	}
}
