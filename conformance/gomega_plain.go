package conformance

import (
	"regexp"
	"strconv"
	"strings"
)

// gomegaType is the Go type gomega prints before each value it formats
// ("<[]string | len:4, cap:4>: "), at the start of a line.
var gomegaType = regexp.MustCompile(`(?m)^([ \t]*)<([^\n]*?)>: `)

// gomegaLen is the length in a slice's or map's gomega type.
var gomegaLen = regexp.MustCompile(`\| len:(\d+)`)

// gomegaTruncated is gomega's advice after a value it cut at
// format.MaxLength.
const gomegaTruncated = `...

Gomega truncated this representation as it exceeds 'format.MaxLength'.
Consider having the object provide a custom 'GomegaStringer' representation
or adjust the parameters in Gomega's 'format' package.

Learn more here: https://onsi.github.io/gomega/#adjusting-output
`

// plainFailure rewrites a gomega failure for a person who never wrote Go:
// values without their Go types (a long list says how many items it
// has), and a cut value marked as cut instead of gomega's advice on its
// own settings.
func plainFailure(msg string) string {
	msg = strings.ReplaceAll(msg, gomegaTruncated, "… (cut)\n")
	return gomegaType.ReplaceAllStringFunc(msg, func(m string) string {
		sub := gomegaType.FindStringSubmatch(m)
		if l := gomegaLen.FindStringSubmatch(sub[2]); l != nil {
			if n, _ := strconv.Atoi(l[1]); n > 10 {
				return sub[1] + l[1] + " items: "
			}
		}
		return sub[1]
	})
}
