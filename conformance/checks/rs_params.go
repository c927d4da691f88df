package checks

// The RS read contract's own parameter names (docs/RS-CONTRACT.md §8, §10),
// for mcpcheck's replays and its reading of the RS request log: the
// contract fixes them, whatever an adapter calls its arguments.
const (
	rsLimitChars = "limit_chars" // a field window's length
	rsAfterChars = "after_chars" // context after a match in a field window
	rsSearchText = "q"           // what a search looks for
)
