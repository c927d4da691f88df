package dialect

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A PrintedCall is a tool call a target wrote into an answer for the model
// to make next, with its arguments in the target's own names.
type PrintedCall struct {
	Tool string
	Args map[string]any
	At   string // the line it was found on, for messages
	// Loose says the notation did not type its values (name k=v, or
	// name(k=v) with bare words): [Dialect.Typed] types them by the
	// tool's inputSchema.
	Loose bool
}

// The notations a printed call is read in:
//
//	read_record_field {"id": "x", "field": "body"}      JSON arguments
//	read_record_field args={"id": "x"}                  the same, labelled
//	read_record_field({"id": "x"})                      the same, in parentheses
//	read_record_field(id="x", field='body', offset=200) keyword arguments
//	read_record_field id=x field=body offset=200        a key=value list
//	{"tool": "read_record_field", "arguments": {…}}     a call object
func callStartRe(tools []string) *regexp.Regexp {
	names := make([]string, 0, len(tools))
	for _, t := range tools {
		names = append(names, regexp.QuoteMeta(t))
	}
	slices.SortFunc(names, func(a, b string) int { return len(b) - len(a) })
	return regexp.MustCompile(`\b(` + strings.Join(names, "|") + `)\b`)
}

var callObjectRe = regexp.MustCompile(`\{\s*"(?:tool|name)"\s*:\s*"([A-Za-z0-9_.-]+)"`)

// PrintedCalls reads every call of one of tools written into text, in any
// notation above, in order of appearance.
func PrintedCalls(text string, tools []string) []PrintedCall {
	if len(tools) == 0 || text == "" {
		return nil
	}
	var out []PrintedCall
	for _, loc := range callStartRe(tools).FindAllStringSubmatchIndex(text, -1) {
		tool := text[loc[2]:loc[3]]
		if loc[2] > 0 && strings.ContainsRune(`"'/:`, rune(text[loc[2]-1])) {
			continue // a quoted or path-like mention, not a call
		}
		if args, loose, ok := argsAfter(text, loc[1]); ok {
			out = append(out, PrintedCall{Tool: tool, Args: args, At: LineAround(text, loc[2]), Loose: loose})
		}
	}
	for _, loc := range callObjectRe.FindAllStringSubmatchIndex(text, -1) {
		tool := text[loc[2]:loc[3]]
		if !slices.Contains(tools, tool) {
			continue
		}
		obj, ok := jsonObjectAt(text, loc[0])
		if !ok {
			continue
		}
		var call map[string]any
		if json.Unmarshal([]byte(obj), &call) != nil {
			continue
		}
		for _, k := range []string{"arguments", "args", "input", "params"} {
			if args, ok := call[k].(map[string]any); ok {
				out = append(out, PrintedCall{Tool: tool, Args: args, At: LineAround(text, loc[0])})
				break
			}
		}
	}
	return out
}

// argsAfter reads the arguments written right after a tool name at text[i].
func argsAfter(text string, i int) (map[string]any, bool, bool) {
	rest := text[i:]
	trimmed := strings.TrimLeft(rest, " \t")
	gap := len(rest) - len(trimmed)
	switch {
	case strings.HasPrefix(trimmed, "args="):
		gap += len("args=")
		fallthrough
	case strings.HasPrefix(trimmed, "{"):
		return jsonArgs(text, i+gap)
	case gap == 0 && strings.HasPrefix(trimmed, "("):
		inner := strings.TrimLeft(trimmed[1:], " \t")
		if strings.HasPrefix(inner, "{") {
			return jsonArgs(text, i+len(rest)-len(inner))
		}
		return keywordArgs(trimmed[1:], ")")
	case gap > 0:
		return keywordArgs(trimmed, "\n")
	}
	return nil, false, false
}

func jsonArgs(text string, at int) (map[string]any, bool, bool) {
	obj, ok := jsonObjectAt(text, at)
	if !ok {
		return nil, false, false
	}
	var args map[string]any
	if json.Unmarshal([]byte(obj), &args) != nil {
		return nil, false, false
	}
	return args, false, true
}

var keyRe = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*`)

// keywordArgs reads k=v pairs, separated by commas or spaces, up to end
// (")" for keyword arguments, a line end for a key=value list). At least
// one pair, and for ")" nothing else before it.
func keywordArgs(s, end string) (map[string]any, bool, bool) {
	args := map[string]any{}
	loose := false
	for {
		s = strings.TrimLeft(s, " \t,")
		if s == "" || strings.HasPrefix(s, end) || (end == "\n" && strings.HasPrefix(s, "\r")) {
			break
		}
		m := keyRe.FindStringSubmatch(s)
		if m == nil {
			if end == ")" {
				return nil, false, false
			}
			break // prose after the list
		}
		s = s[len(m[0]):]
		v, n, bare := valueAt(s, end)
		if n == 0 {
			return nil, false, false
		}
		args[m[1]] = v
		loose = loose || bare
		s = s[n:]
	}
	if len(args) == 0 {
		return nil, false, false
	}
	return args, loose, true
}

// valueAt reads one value at the start of s: JSON (a string, an array, an
// object, a number, true, false, null), a single-quoted string, or a bare
// word. It returns the value, the bytes read, and whether it was bare.
func valueAt(s, end string) (any, int, bool) {
	if s == "" {
		return nil, 0, false
	}
	switch s[0] {
	case '"', '[', '{':
		dec := json.NewDecoder(strings.NewReader(s))
		var v any
		if dec.Decode(&v) == nil {
			return v, int(dec.InputOffset()), false
		}
		if s[0] == '[' {
			return bareList(s)
		}
		return nil, 0, false
	case '\'':
		if j := strings.IndexByte(s[1:], '\''); j >= 0 {
			return s[1 : j+1], j + 2, false
		}
		return nil, 0, false
	}
	stop := " \t\r\n,"
	if end == ")" {
		stop += ")"
	}
	j := strings.IndexAny(s, stop)
	if j < 0 {
		j = len(s)
	}
	word := s[:j]
	if end == "\n" {
		word = strings.TrimRight(word, ".;")
	}
	word = trimUnbalanced(word)
	if word == "" {
		return nil, 0, false
	}
	switch word {
	case "true", "True":
		return true, j, false
	case "false", "False":
		return false, j, false
	case "null", "None":
		return nil, j, false
	}
	return word, j, true
}

// Typed types a loose printed call's bare words by tool's inputSchema: a
// word becomes a number where the argument is declared a number only.
func (d *Dialect) Typed(c PrintedCall) PrintedCall {
	if !c.Loose {
		return c
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	td := d.tools[c.Tool]
	if td == nil {
		return c
	}
	args := make(map[string]any, len(c.Args))
	for k, v := range c.Args {
		args[k] = v
		s, ok := v.(string)
		i := slices.IndexFunc(td.props, func(p property) bool { return p.Name == k })
		if !ok || i < 0 || slices.Contains(td.props[i].Types, "string") || len(td.props[i].Types) == 0 {
			continue
		}
		if n, err := strconv.ParseFloat(s, 64); err == nil {
			args[k] = n
		}
	}
	c.Args = args
	return c
}

// jsonObjectAt returns the balanced JSON object that starts at text[i].
func jsonObjectAt(text string, i int) (string, bool) {
	depth, inStr, esc := 0, false, false
	for j := i; j < len(text); j++ {
		c := text[j]
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return text[i : j+1], true
			}
		}
	}
	return "", false
}

// LineAround is the line of text that holds byte i, without its newline.
func LineAround(text string, i int) string {
	start := strings.LastIndexByte(text[:i], '\n') + 1
	end := strings.IndexByte(text[i:], '\n')
	if end < 0 {
		return text[start:]
	}
	return text[start : i+end]
}

// trimUnbalanced drops closing brackets that end a bare word without an
// opening one in it: the bracket around a printed call ("…at=240]") is
// not part of its last value.
func trimUnbalanced(word string) string {
	for _, p := range [][2]string{{"(", ")"}, {"[", "]"}, {"{", "}"}} {
		for strings.HasSuffix(word, p[1]) && strings.Count(word, p[1]) > strings.Count(word, p[0]) {
			word = word[:len(word)-1]
		}
	}
	return word
}

// bareList reads a list of bare words, [a, b] or [a,b], as strings.
func bareList(s string) (any, int, bool) {
	end := strings.IndexByte(s, ']')
	if end < 0 || strings.ContainsAny(s[1:end], "[{\"\n") {
		return nil, 0, false
	}
	var out []any
	for _, w := range strings.Split(s[1:end], ",") {
		if w = strings.TrimSpace(w); w != "" {
			out = append(out, w)
		}
	}
	return out, end + 1, true
}
