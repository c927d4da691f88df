package probe

import (
	"regexp"
	"strings"
)

// Reading completion and truncation state, cut marks and highlight tags in
// the common wordings (issue 27, cause 5). A reader here only widens what
// counts as saying a thing; what a clause requires stays the clause's.

var (
	// CutLabel finds a visible statement that a value is cut: any common
	// ellipsis ("…", "...", "⋯", "[…]"), or words that say so ("truncated",
	// "cut", "clipped", "partial", "incomplete", "more follows", a line
	// ending in "more", "+more", complete=false, has_more=true).
	CutLabel = regexp.MustCompile(`(?im)…|\.\.\.|⋯|truncat|\bcut\b|\bclipped\b|\belided\b|\babridged\b|partial|incomplete|not complete|more follows|\+more\b|\bmore\s*$|complete["']?\s*[=:]\s*["']?false|has_more["']?\s*[=:]\s*["']?true|more_(text|chars|characters)`)

	// Ellipsis splits a preview at the cuts it marks.
	Ellipsis = regexp.MustCompile(`\[…\]|\[\.\.\.\]|\(truncated\)|…|⋯|\.\.\.`)

	// Completion finds a completion state, whole or not.
	Completion = regexp.MustCompile(`(?im)complete|has_more|truncat|partial|whole|entire|\bend\s*$|\bmore\s*$|\bdone\b`)

	// HighlightTag is a whole highlight tag of any short name: <mark>,
	// <em>, <b>, <strong>, <hl>… (seed 001 asks for balanced tags, not one).
	HighlightTag = regexp.MustCompile(`</?(?:mark|em|b|strong|hl|i|u|ins|span)>`)

	// HighlightedTerm is one highlighted term: an open tag, the term, a
	// closing tag (the names compared by Highlighted).
	HighlightedTerm = regexp.MustCompile(`<(mark|em|b|strong|hl|i|u|ins|span)>([^<]*)</(mark|em|b|strong|hl|i|u|ins|span)>`)
)

// Highlighted is the first highlighted term of a preview, in balanced tags
// of one name.
func Highlighted(s string) string {
	for _, m := range HighlightedTerm.FindAllStringSubmatch(s, -1) {
		if m[1] == m[3] {
			return m[2]
		}
	}
	return ""
}

// NextLabel is a label that introduces the call reading on ("next",
// "Next:", "next page ->", "continue with"), in any case.
var NextLabel = regexp.MustCompile(`(?i)^\W*(next|continue|more)\b`)

// A StateClaim is an explicit completion flag an answer shows: a key of
// completion (complete, whole, is_complete) or of more (truncated, partial,
// has_more, more; more_after and has_next as more_after) given a yes/no
// value, in text (key=value, key: value) or as a structuredContent
// boolean, or a statement that more follows (key more_follows). Whole says
// what it claims of the value. A window's more_after may sit in a page's
// hits, so a page is judged by its own keys.
type StateClaim struct {
	Key, Excerpt string // the flag's key, lower-cased; what was found
	Whole        bool
}

// stateFlag is an explicit flag in text or compact JSON.
var stateFlag = regexp.MustCompile(`(?i)["']?\b(is_complete|complete|whole|truncated|is_truncated|partial|has_more|more|more_after|has_next)["']?\s*[=:]\s*["']?(true|false|yes|no)\b`)

// moreFollows says, as a statement, that more of the value comes after
// what is shown ("more text follows"); one after if/when/whether is a
// condition, not a claim.
var moreFollows = regexp.MustCompile(`(?i)(\b(?:if|when|whether|unless)\s+(?:\w+\s+){0,3})?\bmore\s+(?:text\s+|content\s+)?follows\b`)

// StateClaims are the explicit completion flags in s (text, or compact
// structuredContent). A reader only: no flag found proves nothing.
func StateClaims(s string) []StateClaim {
	var out []StateClaim
	for _, m := range stateFlag.FindAllStringSubmatch(s, -1) {
		yes := strings.EqualFold(m[2], "true") || strings.EqualFold(m[2], "yes")
		key := strings.ToLower(m[1])
		switch key {
		case "is_complete", "complete", "whole":
			out = append(out, StateClaim{Key: key, Excerpt: m[0], Whole: yes})
		case "more_after", "has_next":
			out = append(out, StateClaim{Key: "more_after", Excerpt: m[0], Whole: !yes})
		default:
			out = append(out, StateClaim{Key: key, Excerpt: m[0], Whole: !yes})
		}
	}
	for _, m := range moreFollows.FindAllStringSubmatch(s, -1) {
		if m[1] == "" {
			out = append(out, StateClaim{Key: "more_follows", Excerpt: m[0], Whole: false})
		}
	}
	return out
}
