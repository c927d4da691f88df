// Package shellquote quotes command lines for a POSIX shell: the commands
// pdpp-mcp search prints, and mcpcheck's reproduction lines and target
// descriptions. It is the module's one quoter.
package shellquote

import "strings"

// Quote returns s as one shell word: as it is when it holds only characters
// no shell treats specially, else in single quotes. Braces stay bare (so
// {rs_url} reads as written) unless a comma or ".." would make a shell
// expand them.
func Quote(s string) string {
	braces := !strings.Contains(s, ",") && !strings.Contains(s, "..")
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@%+,", r) ||
			braces && (r == '{' || r == '}'))
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
