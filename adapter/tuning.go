package adapter

// Tuning holds the adapter's knobs: bounds, windows and policies that have
// more than one defensible value. The zero value of every field is the
// default, so Tuning{} is the adapter as shipped.
type Tuning struct {
	// TextBudget bounds the content[] text of query_records and search, in
	// bytes. Zero means DefaultTextBudget.
	TextBudget int
	// RecordPreviews is how many records query_records previews in text,
	// and FieldContinuations how many continuations of fields not shown
	// inline it lists. Zero means 5 each.
	RecordPreviews, FieldContinuations int
	// AggregateGroups is how many groups aggregate's text shows before
	// more_groups=N. Zero means 5.
	AggregateGroups int
	// SnippetChars is how many characters of a snippet or evidence excerpt
	// search's text shows, around the first highlight. Zero means 96.
	SnippetChars int
	// ValueChars is how much of a large text field, in characters, a
	// record preview shows before its [truncated: N chars] marker. Zero
	// means 60.
	ValueChars int
	// FieldWindow is the length, in characters, past which a text field is
	// shown as a descriptor instead of inline, and of each read_record_field
	// window offered for it. Zero means 4,096.
	FieldWindow int
	// FetchTextLimit bounds fetch's document text in characters; a longer
	// text is cut, saying so, with a read_record_field continuation. Zero
	// means 16,384, the RS's largest field window.
	FetchTextLimit int
	// Ellipsis marks every cut the adapter makes in text. Empty means "…".
	Ellipsis string
	// AmbiguityListLimit caps available_connections in an
	// ambiguous_connection error (available_connection_count stays whole).
	// Zero means 12, as the anchor's package client does.
	AmbiguityListLimit int
	// SourceMixCap names at most that many connections in search's
	// source_mix, then more:N. Zero names every contributing connection.
	SourceMixCap int
	// ExpandGate is how query_records and fetch check expand against the
	// live schema. The zero value is ExpandGateLive.
	ExpandGate ExpandGate
	// RSProjects leaves projection to the RS: fields is forwarded, and the
	// records and documents it answers are rendered without narrowing them
	// again. False (the default) narrows them too, in case the RS ignores
	// fields.
	RSProjects bool
	// UnscopedLists is how query_records reads a stream that several of
	// the grant's connections serve when the call names no connection_id.
	// The zero value is UnscopedListsAsk.
	UnscopedLists UnscopedListPolicy
	// TokenKinds are the bearer kinds (the RS's token_kind) the hosted
	// endpoint serves. Nil means grant-scoped client tokens only.
	TokenKinds []string
	// FallbackTitle names a search hit or fetch document that has no source
	// title, from its source, stream and time (the authored time when
	// known, else the emitted one). Nil means "source / stream / time".
	FallbackTitle func(source, stream, at string) string
	// IDs writes the record ids the tools show and reads the ids they take.
	// Nil means PathIDs.
	IDs IDCodec
	// Grammar writes the field-capability summary of scoped schema rows and
	// the legend that explains it. Nil means CompactGrammar.
	Grammar SchemaGrammar
}

// DefaultTextBudget is the default Tuning.TextBudget: room for a preview
// and every handle, in about 450 tokens.
const DefaultTextBudget = 1792

// An ExpandGate says how expand is checked before it reaches the RS.
type ExpandGate int

const (
	// ExpandGateLive rejects expand on a stream whose live schema
	// advertises no expand_capabilities, asking the RS's schema on every
	// call, and leaves the decision to the RS when the schema cannot be read.
	ExpandGateLive ExpandGate = iota
	// ExpandGateFailClosed is ExpandGateLive, except that it rejects
	// expand when the schema cannot be read.
	ExpandGateFailClosed
	// ExpandGateOff leaves every expand to the RS, which rejects what it
	// does not support with its own typed error.
	ExpandGateOff
)

// An UnscopedListPolicy says how query_records answers a read without
// connection_id of a stream that several connections serve.
type UnscopedListPolicy int

const (
	// UnscopedListsAsk answers with a typed ambiguous_connection error
	// built from grant membership, before any record read: seed 001's rule
	// for source-required reads.
	UnscopedListsAsk UnscopedListPolicy = iota
	// UnscopedListsFanIn forwards the read, which the RS fans in over the
	// grant's connections (one page each, no next_cursor, a partial_results
	// warning: docs/RS-CONTRACT.md §6.4); every previewed record names its connection.
	UnscopedListsFanIn
)

// withDefaults fills every zero knob with its default.
func (t Tuning) withDefaults() Tuning {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&t.TextBudget, DefaultTextBudget)
	def(&t.RecordPreviews, 5)
	def(&t.FieldContinuations, 5)
	def(&t.AggregateGroups, 5)
	def(&t.SnippetChars, 96)
	def(&t.ValueChars, 60)
	def(&t.FieldWindow, 4096)
	def(&t.FetchTextLimit, 16384)
	def(&t.AmbiguityListLimit, 12)
	if t.Ellipsis == "" {
		t.Ellipsis = "…"
	}
	if t.TokenKinds == nil {
		t.TokenKinds = []string{"client"}
	}
	if t.FallbackTitle == nil {
		t.FallbackTitle = fallbackTitle
	}
	if t.IDs == nil {
		t.IDs = PathIDs{}
	}
	if t.Grammar == nil {
		t.Grammar = CompactGrammar{Ellipsis: t.Ellipsis}
	}
	return t
}
