package probe

import (
	"slices"
	"strings"
)

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

// maxSegmentLines bounds the text Segment gives one item.
const maxSegmentLines = 40

// Segment is the text about one item of a page, whatever its layout: the
// first line that shows id as a token, and the lines under it (indented,
// or bullets such as "- blob_ref: …") up to a line that shows another of
// the page's ids (others) or stands on its own (a footer), at most
// maxSegmentLines lines. "" when no line shows id.
func Segment(text, id string, others []string) string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if len(out) == 0 {
			if ContainsToken(line, id) {
				out = append(out, line)
			}
			continue
		}
		under := line != "" && (line[0] == ' ' || line[0] == '\t' || isBullet(line))
		if !under || len(out) == maxSegmentLines || slices.ContainsFunc(others, func(o string) bool { return o != id && ContainsToken(line, o) }) {
			break
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// isBullet reports whether line is an item of a bulleted list.
func isBullet(line string) bool {
	for _, b := range []string{"- ", "* ", "• "} {
		if strings.HasPrefix(line, b) {
			return true
		}
	}
	return false
}
