// Package shellquote quotes command lines for a POSIX shell: the commands
// pdpp-mcp search prints, and mcpcheck's reproduction lines.
package shellquote

import "strings"

// Quote returns s as one shell word: as it is when it holds only characters
// no shell treats specially, else in single quotes.
func Quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Join quotes each argument and joins them with spaces.
func Join(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = Quote(a)
	}
	return strings.Join(out, " ")
}
