package conformance

import (
	"strings"
	"testing"

	"github.com/onsi/gomega"
)

// Failures carry values in plain form: no Go type text such as
// <[]string | len:1, cap:1>, and no advice on gomega's own settings.
func TestPlainFailureDropsGoTypes(t *testing.T) {
	var got []string
	g := gomega.NewGomega(func(msg string, _ ...int) { got = append(got, plainFailure(msg)) })
	long := make([]string, 2000)
	for i := range long {
		long[i] = strings.Repeat("x", 10)
	}
	g.Expect([]string{"messages"}).To(gomega.BeEmpty())
	g.Expect(map[string]int{"a": 1}).To(gomega.BeEmpty())
	g.Expect("abc").To(gomega.Equal("abd"))
	g.Expect(3).To(gomega.BeNumerically(">", 4))
	g.Expect(nil).NotTo(gomega.BeNil())
	g.Expect(long).To(gomega.BeEmpty())
	if len(got) != 6 {
		t.Fatalf("%d failures, want 6", len(got))
	}
	for _, msg := range got {
		for _, bad := range []string{"<[]string", "len:", "cap:", "<string>", "<int>", "<map[", "<nil>", "format.MaxLength", "Gomega truncated"} {
			if strings.Contains(msg, bad) {
				t.Errorf("failure holds %q:\n%s", bad, msg)
			}
		}
	}
	if !strings.Contains(got[0], `["messages"]`) || !strings.Contains(got[5], "2000 items: [") || !strings.Contains(got[5], "… (cut)") {
		t.Errorf("values lost:\n%s\n%s", got[0], got[5])
	}
}
