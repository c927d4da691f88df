package probe

import "strings"

// Reading text as blocks (issue 27, cause 6): a hit or a record is judged
// as a unit, whatever its layout. One line per item is a block of one
// line; a title line followed by indented lines (an id, a preview, a read
// call) is one block; a blank line ends a block.

// Blocks splits text into its blocks.
func Blocks(text string) []string {
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, "\n"))
			cur = nil
		}
	}
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.TrimSpace(line) == "":
			flush()
		case line[0] == ' ' || line[0] == '\t':
			cur = append(cur, line)
		default:
			flush()
			cur = append(cur, line)
		}
	}
	flush()
	return out
}

// BlocksWith are the blocks of text that show tok as a token, joined: the
// text a content-only client reads about one item.
func BlocksWith(text, tok string) string {
	var out []string
	for _, b := range Blocks(text) {
		if ContainsToken(b, tok) {
			out = append(out, b)
		}
	}
	return strings.Join(out, "\n")
}
