package fakers

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// A query Go cannot parse (a bad escape, more parameters than
// url.ParseQuery allows) or one over MaxQueryBytes is refused with a typed
// 400; r.URL.Query() would have dropped it and read every connection unfiltered.
func TestUnreadableQueryIsATyped400(t *testing.T) {
	c, _ := newClient(t, DefaultFixture, (*RS).ClientToken)
	manyKeys := make([]string, 10_001)
	for i := range manyKeys {
		manyKeys[i] = fmt.Sprintf("filter[f%d]=x", i)
	}
	for name, raw := range map[string]string{
		"bad escape":        "connection_id=cin_work&filter[subject]=%zz",
		"10,001 parameters": strings.Join(manyKeys, "&"),
		"over the cap":      "connection_id=cin_work&filter[subject]=" + strings.Repeat("a", MaxQueryBytes),
	} {
		t.Run(name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", MockBaseURL+"/v1/streams/messages/records?"+raw, nil)
			req.Header.Set("Authorization", "Bearer "+c.token)
			resp, err := c.http.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			var body map[string]any
			_ = json.Unmarshal(b, &body)
			if resp.StatusCode != http.StatusBadRequest || errCode(body) != "invalid_request" {
				t.Fatalf("got %d %s, want 400 invalid_request: %.300s", resp.StatusCode, errCode(body), b)
			}
			if e, _ := body["error"].(map[string]any); e["type"] != envelopeType(400) || e["request_id"] == nil {
				t.Errorf("error envelope wants type %s and a request_id: %v", envelopeType(400), e)
			}
		})
	}
}
