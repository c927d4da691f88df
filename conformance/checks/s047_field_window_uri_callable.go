package checks

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"
	. "github.com/onsi/gomega"
)

var s047 = &Check{ID: "S047", Slug: "field-window-uri-callable", Mode: ModeBBD, Run: func(t *T) {
	var outputs []*Call
	if _, c, _ := fanInTerm(t); c != nil {
		outputs = append(outputs, c)
		for _, e := range evidenceLines(c.Text()) {
			if e.ID != "" {
				outputs = append(outputs, t.Call("read_record_field", map[string]any{"id": e.ID, "field_path": e.FieldPath, "limit_chars": 200}))
				break
			}
		}
	}
	if q := firstRecordsCall(t); q != nil {
		outputs = append(outputs, q)
	}
	if rec, field, _, ok := smallField(t); ok {
		outputs = append(outputs, t.Call("read_record_field", map[string]any{"id": rec.ID, "field_path": field}))
	}
	resources := t.Target.Init != nil && t.Target.Init.Capabilities != nil && t.Target.Init.Capabilities.Resources != nil
	for _, o := range outputs {
		for _, u := range handleURIs(o, "field-window") {
			t.Expect(resources).To(BeTrue(), "%s shows %s but the server offers no resources to read it with", o.Tool, u)
			rr, err := t.Target.Session.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: u})
			t.Expect(err).NotTo(HaveOccurred(), "resources/read of %s shown by %s must work", u, o.Tool)
			t.Expect(rr.Contents).NotTo(BeEmpty())
		}
	}
	bad := t.Call("read_record_field", map[string]any{"id": "pdpp://field-window/not-base64url-json", "field_path": "text"})
	t.Expect(bad.IsError()).To(BeTrue(), "a malformed field-window handle must be rejected")
	t.Expect(bad.ErrorCode()).NotTo(BeEmpty(), "a malformed handle gets a typed error")
	if resources {
		_, err := t.Target.Session.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "pdpp://field-window/not-base64url-json"})
		t.Expect(err).To(HaveOccurred(), "resources/read of a malformed handle must be rejected")
	}
}}
