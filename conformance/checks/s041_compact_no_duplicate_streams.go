package checks

import (
	"reflect"

	. "github.com/onsi/gomega"
)

var s041 = &Check{ID: "S041", Slug: "compact-no-duplicate-streams", Mode: ModeBB, Run: func(t *T) {
	c, rows := schemaIndex(t)
	docs := []map[string]any{c.Data()}
	if names := streamNames(rows); len(names) > 0 {
		sc, _ := scopedSchema(t, map[string]any{"stream": names[0]})
		docs = append(docs, sc.Data())
	}
	for _, doc := range docs {
		cs, _ := doc["connectors"].([]any)
		if len(cs) == 0 {
			continue
		}
		t.Expect(doc).NotTo(HaveKey("streams"), "with connectors[] present, the same rows must not repeat in a top-level streams list")
		for _, cn := range cs {
			cm, _ := cn.(map[string]any)
			shared, ok := cm["granted_connections"]
			if !ok {
				continue
			}
			list, _ := cm["streams"].([]any)
			for _, s := range list {
				sm, _ := s.(map[string]any)
				if own, has := sm["granted_connections"]; has {
					t.Expect(reflect.DeepEqual(own, shared)).To(BeFalse(),
						"stream %v repeats its connector's granted_connections; it inherits them and keeps its own only when they differ", sm["name"])
				}
			}
		}
	}
}}
