// Package dialect resolves what a check means by an argument (its role:
// the record id, the field, the search query) to the name the target under
// test declares for it. The seeds name the tools and some arguments, but
// leave others open (the field read's arguments, the search query), so a
// check never sends a name of its own choosing: it asks for roles, and the
// target's inputSchema, the calls it prints in its answers, or the user's
// --dialect file say which argument plays each.
package dialect

import (
	"slices"
	"strings"
)

// A Role is what an argument does, whatever the target calls it.
type Role string

// The roles checks call tools with.
const (
	RecordID     Role = "record id"      // the record a fetch or field read is about
	Field        Role = "field"          // the field a field read or an aggregate is about
	Offset       Role = "offset"         // where a field window starts
	Length       Role = "length"         // how many characters a field window holds
	Before       Role = "context before" // characters before a match in a field read
	After        Role = "context after"  // characters after a match in a field read
	Context      Role = "context"        // characters on either side of a match, one argument for both
	Query        Role = "query"          // the text a search or a field read looks for
	Limit        Role = "limit"          // how many hits, records or groups
	Cursor       Role = "cursor"         // the handle of the next page or window
	Connection   Role = "connection"     // connection_id
	Stream       Role = "stream"         // one stream
	Streams      Role = "streams"        // the streams a search is narrowed to
	Fields       Role = "fields"         // a projection
	Detail       Role = "detail"         // the schema's detail level
	Filter       Role = "filter"         // a typed record filter
	Sort         Role = "sort"           // the field records are sorted by
	Order        Role = "order"          // ascending or descending
	Count        Role = "count"          // the count mode of a record page
	ChangesSince Role = "changes since"  // the incremental-read handle
	Expand       Role = "expand"         // relations to expand
	ExpandLimit  Role = "expand limit"   // per-relation expansion bounds
	Metric       Role = "metric"         // what an aggregate computes
	GroupBy      Role = "group by"       // the field an aggregate groups by
	GroupByTime  Role = "group by time"  // the time field an aggregate buckets
	Granularity  Role = "granularity"    // the bucket size
	TimeZone     Role = "time zone"      // the buckets' time zone
)

// Args are a call's arguments by role; [Dialect.Resolve] names them.
type Args map[Role]any

// A kind is the JSON type a role's value has.
type kind int

const (
	kString kind = iota
	kInteger
	kArray
	kObject
)

// A roleSpec says how to recognise the argument that plays a role: the
// names it goes by (the seed's or the usual one first), words its name or
// description may hold, and the enum values that give it away.
type roleSpec struct {
	kind  kind
	names []string // whole names, normalised (lower case, no separators)
	words []string // words of a name or description
	enum  []string // enum values that mark it
	seed  string   // the name the seed text gives it, if it gives one
}

var roles = map[Role]roleSpec{
	RecordID:     {kString, []string{"id", "recordid", "record", "handle", "uri", "recordref", "ref", "recorduri", "documentid", "docid", "itemid", "recordhandle"}, []string{"record", "handle", "uri", "identifier", "id"}, nil, ""},
	Field:        {kString, []string{"fieldpath", "field", "path", "key", "fieldname", "fieldkey", "property", "column", "attribute"}, []string{"field", "path", "property", "column"}, nil, ""},
	Offset:       {kInteger, []string{"offsetchars", "offset", "skip", "start", "from", "startchar", "startat", "position", "pos", "charoffset", "begin"}, []string{"offset", "skip", "start", "position", "begin"}, nil, ""},
	Length:       {kInteger, []string{"limitchars", "length", "maxchars", "chars", "window", "windowchars", "size", "len", "take", "maxlength", "limit", "count", "windowsize", "characters"}, []string{"characters", "chars", "length", "window", "size"}, nil, ""},
	Before:       {kInteger, []string{"beforechars", "before", "contextbefore", "charsbefore", "leading", "pre"}, []string{"before", "preceding", "leading"}, nil, ""},
	After:        {kInteger, []string{"afterchars", "after", "contextafter", "charsafter", "trailing", "post"}, []string{"after", "following", "trailing"}, nil, ""},
	Context:      {kInteger, []string{"contextchars", "context", "contextsize", "contextlength", "surrounding", "surroundingchars", "aroundchars", "padding"}, []string{"context", "surrounding"}, nil, ""},
	Query:        {kString, []string{"q", "query", "text", "term", "terms", "search", "keywords", "phrase", "needle", "match", "find", "querytext", "searchtext", "around", "contains"}, []string{"search", "query", "match", "find", "terms", "keyword", "phrase"}, nil, ""},
	Limit:        {kInteger, []string{"limit", "maxresults", "topk", "k", "n", "pagesize", "max", "size", "maxhits", "count", "perpage"}, []string{"limit", "maximum", "max", "results", "hits", "page"}, nil, "limit"},
	Cursor:       {kString, []string{"cursor", "pagetoken", "nextcursor", "continuation", "token", "page", "next", "after", "resume"}, []string{"cursor", "token", "continuation", "next"}, nil, ""},
	Connection:   {kString, []string{"connectionid", "connection", "conn", "source"}, []string{"connection"}, nil, "connection_id"},
	Stream:       {kString, []string{"stream", "streamname", "collection"}, []string{"stream"}, nil, "stream"},
	Streams:      {kArray, []string{"streams", "streamnames", "stream"}, []string{"streams", "stream"}, nil, "streams"},
	Fields:       {kArray, []string{"fields", "projection", "select", "columns", "fieldnames"}, []string{"fields", "projection", "project"}, nil, "fields"},
	Detail:       {kString, []string{"detail", "level", "view", "verbosity", "mode"}, []string{"detail", "full", "compact"}, []string{"full"}, "detail"},
	Filter:       {kObject, []string{"filter", "where", "filters", "match"}, []string{"filter"}, nil, "filter"},
	Sort:         {kString, []string{"sort", "sortby", "orderby", "sortfield"}, []string{"sort"}, nil, "sort"},
	Order:        {kString, []string{"order", "direction", "sortorder", "dir"}, []string{"order", "ascending", "descending"}, []string{"asc", "desc"}, "order"},
	Count:        {kString, []string{"count", "countmode", "total"}, []string{"count"}, []string{"exact", "estimated"}, "count"},
	ChangesSince: {kString, []string{"changessince", "since", "changes", "sincecursor"}, []string{"changes", "since"}, nil, "changes_since"},
	Expand:       {kArray, []string{"expand", "include", "relations"}, []string{"expand", "relation"}, nil, "expand"},
	ExpandLimit:  {kObject, []string{"expandlimit", "expandlimits", "includelimit"}, []string{"expand"}, nil, "expand_limit"},
	Metric:       {kString, []string{"metric", "op", "operation", "function", "agg", "aggregate", "aggregation"}, []string{"metric", "aggregate"}, []string{"count", "sum"}, "metric"},
	GroupBy:      {kString, []string{"groupby", "group", "by", "groupfield"}, []string{"group"}, nil, "group_by"},
	GroupByTime:  {kString, []string{"groupbytime", "timefield", "bucketby", "groupbydate"}, []string{"time", "bucket"}, nil, "group_by_time"},
	Granularity:  {kString, []string{"granularity", "interval", "bucket", "period"}, []string{"granularity", "interval"}, []string{"day", "month"}, "granularity"},
	TimeZone:     {kString, []string{"timezone", "tz", "zone"}, []string{"zone"}, nil, "time_zone"},
}

// toolRoles are the roles each seed-named tool's arguments can play; a
// tool the seeds do not name may take any.
var toolRoles = map[string][]Role{
	"schema":            {Stream, Connection, Detail},
	"query_records":     {Stream, Connection, Fields, Filter, Limit, Cursor, Order, Sort, Count, ChangesSince, Expand, ExpandLimit},
	"aggregate":         {Stream, Connection, Metric, Field, GroupBy, GroupByTime, Granularity, TimeZone, Limit, Filter},
	"search":            {Query, Streams, Connection, Limit, Cursor},
	"fetch":             {RecordID, Stream, Connection, Fields, Expand},
	"read_record_field": {RecordID, Stream, Field, Connection, Offset, Length, Cursor, Query, Before, After, Context},
}

// rolesOf lists the roles tool's arguments can play, in a fixed order.
func rolesOf(tool string) []Role {
	if rs, ok := toolRoles[tool]; ok {
		return rs
	}
	var all []Role
	for r := range roles {
		all = append(all, r)
	}
	slices.Sort(all)
	return all
}

// ParseRole reads a role as a user writes it: "record id", "record_id",
// "RecordID" and "record-id" are the same role.
func ParseRole(s string) (Role, bool) {
	n := normalise(s)
	for r := range roles {
		if normalise(string(r)) == n {
			return r, true
		}
	}
	return "", false
}

// normalise is a name without case or separators: "field_path",
// "fieldPath" and "Field-Path" are all "fieldpath".
func normalise(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r != '_' && r != '-' && r != ' ' && r != '.' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// nameWords splits an argument name into its lower-case words:
// "fieldPath" and "field_path" are both [field path].
func nameWords(s string) []string {
	var words []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			words = append(words, cur.String())
			cur.Reset()
		}
	}
	prevLower := false
	for _, r := range s {
		switch {
		case r == '_' || r == '-' || r == ' ' || r == '.':
			flush()
			prevLower = false
			continue
		case r >= 'A' && r <= 'Z':
			if prevLower {
				flush()
			}
			cur.WriteRune(r + 'a' - 'A')
			prevLower = false
			continue
		}
		cur.WriteRune(r)
		prevLower = r >= 'a' && r <= 'z'
	}
	flush()
	return words
}
