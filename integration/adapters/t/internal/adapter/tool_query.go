package adapter

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"example.com/pdppadapter-t/internal/ojson"
)

type queryArgs struct {
	Stream       string          `json:"stream"`
	ConnectionID string          `json:"connection_id"`
	Fields       strList         `json:"fields"`
	Filter       json.RawMessage `json:"filter"`
	Sort         string          `json:"sort"`
	Order        string          `json:"order"`
	Limit        *int            `json:"limit"`
	Cursor       string          `json:"cursor"`
	Count        string          `json:"count"`
	ChangesSince string          `json:"changes_since"`
	Expand       strList         `json:"expand"`
	ExpandLimit  map[string]int  `json:"expand_limit"`
}

var queryAllowed = []string{"stream", "connection_id", "fields", "filter", "sort", "order", "limit", "cursor", "count", "changes_since", "expand", "expand_limit"}

const (
	defaultQueryLimit = 10
	maxPageLimit      = 100
	queryTextBudget   = 24000
)

// checkExpand rejects expand on streams whose live schema advertises no
// expand_capabilities. It fails open (returns nil) when the schema cannot
// be read or the stream is unknown, leaving the decision to the RS.
func checkExpand(doc *schemaDoc, stream, connectionID string) *toolError {
	if doc == nil {
		return nil
	}
	rows := doc.rowsFor(stream, connectionID)
	if len(rows) == 0 {
		return nil
	}
	for _, r := range rows {
		if len(r.Expand) > 0 {
			return nil
		}
	}
	scope := "?stream=" + stream
	if connectionID != "" {
		scope += "&connection_id=" + connectionID
	}
	e := newErr("invalid_expand", "invalid_request_error",
		fmt.Sprintf("Stream %q advertises no expand relations (expand_capabilities is empty in GET /v1/schema%s), so expand/expand_limit cannot be used on it. The request was not sent.", stream, scope))
	e.Param = "expand"
	e.Hint = fmt.Sprintf("Drop expand, or read the related stream directly with query_records. schema({\"stream\": %q}) shows the expand capabilities.", stream)
	return e
}

func (a *Adapter) toolQueryRecords(ctx context.Context, tok string, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var args queryArgs
	if e := decodeArgs(raw, queryAllowed, &args); e != nil {
		return nil, e
	}
	args.Stream = strings.TrimSpace(args.Stream)
	args.ConnectionID = strings.TrimSpace(args.ConnectionID)
	if args.Stream == "" {
		return nil, argErr("stream", "stream is required; call schema() for stream names")
	}
	limit := defaultQueryLimit
	var notes []string
	if args.Limit != nil {
		limit = *args.Limit
		if limit < 1 {
			return nil, argErr("limit", "limit must be between 1 and 100")
		}
		if limit > maxPageLimit {
			notes = append(notes, fmt.Sprintf("limit %d was reduced to the maximum page size %d", limit, maxPageLimit))
			limit = maxPageLimit
		}
	}
	switch args.Order {
	case "", "asc", "desc":
	default:
		return nil, argErr("order", `order must be "asc" or "desc"`)
	}
	switch args.Count {
	case "", "none", "exact", "estimated":
	default:
		return nil, argErr("count", `count must be "none" or "exact"`)
	}
	q := url.Values{}
	q.Set("limit", strconv.Itoa(limit))
	if args.ConnectionID != "" {
		q.Set("connection_id", args.ConnectionID)
	}
	for _, f := range args.Fields {
		q.Add("fields", f)
	}
	if e := encodeFilter(args.Filter, q); e != nil {
		return nil, e
	}
	if args.Sort != "" {
		q.Set("sort", args.Sort)
	}
	if args.Order != "" {
		q.Set("order", args.Order)
	}
	if args.Cursor != "" {
		q.Set("cursor", args.Cursor)
	}
	if args.Count != "" {
		q.Set("count", args.Count)
	}
	if args.ChangesSince != "" {
		q.Set("changes_since", args.ChangesSince)
	}
	if len(args.ExpandLimit) > 0 && len(args.Expand) == 0 {
		return nil, argErr("expand_limit", "expand_limit needs a matching expand entry")
	}
	if e := encodeExpand(args.Expand, args.ExpandLimit, q); e != nil {
		return nil, e
	}
	// Live, stream-scoped schema: expand gating, roles, source identity.
	doc, serr := a.streamSchema(ctx, tok, args.Stream, args.ConnectionID)
	if serr != nil {
		doc = nil
	}
	if len(args.Expand) > 0 || len(args.ExpandLimit) > 0 {
		if e := checkExpand(doc, args.Stream, args.ConnectionID); e != nil {
			return nil, e
		}
	}
	resp, err := a.rs.Get(ctx, tok, streamPath(args.Stream)+"/records", q)
	if err != nil {
		return nil, err
	}
	body, derr := ojson.DecodeObject(resp.Body)
	if derr != nil {
		return nil, newErr("rs_invalid_json", "api_error", "the resource server returned a malformed record list")
	}
	var children map[string]*schemaDoc
	if len(args.Expand) > 0 {
		children = a.relatedDocs(ctx, tok, rowFor(doc, args.Stream, args.ConnectionID), args.ConnectionID, args.Expand)
	}
	return a.renderRecordList(args, limit, notes, doc, children, body), nil
}

// continuationArgs rebuilds the call arguments for a follow-up page.
func (args queryArgs) continuationArgs(limit int) *ojson.Object {
	o := ojson.NewObject()
	o.Set("stream", args.Stream)
	if args.ConnectionID != "" {
		o.Set("connection_id", args.ConnectionID)
	}
	if len(args.Fields) > 0 {
		o.Set("fields", []string(args.Fields))
	}
	if f := filterObject(args.Filter); f != nil {
		o.Set("filter", f)
	}
	if args.Sort != "" {
		o.Set("sort", args.Sort)
	}
	if args.Order != "" {
		o.Set("order", args.Order)
	}
	o.Set("limit", limit)
	if args.Count != "" {
		o.Set("count", args.Count)
	}
	if len(args.Expand) > 0 {
		o.Set("expand", []string(args.Expand))
	}
	if len(args.ExpandLimit) > 0 {
		o.Set("expand_limit", args.ExpandLimit)
	}
	return o
}

func (a *Adapter) renderRecordList(args queryArgs, limit int, notes []string, doc *schemaDoc, children map[string]*schemaDoc, body *ojson.Object) *mcp.CallToolResult {
	var views []*recordView
	for _, rv := range body.Arr("data") {
		if ro, ok := rv.(*ojson.Object); ok {
			v := newRecordView(ro, args.Stream, args.ConnectionID, doc, args.Fields)
			v.childDocs = children
			views = append(views, v)
		}
	}
	hasMore, _ := body.Bool("has_more")
	nextCursor := body.Str("next_cursor")
	nextChanges := body.Str("next_changes_since")
	meta := body.Obj("meta")
	// Per-connection composition.
	perConn := map[string]int{}
	var connOrder []string
	for _, v := range views {
		if _, ok := perConn[v.Ref.ConnectionID]; !ok {
			connOrder = append(connOrder, v.Ref.ConnectionID)
		}
		perConn[v.Ref.ConnectionID]++
	}
	fanIn := args.ConnectionID == "" && len(connOrder) > 1
	returned := len(views)
	dropped := 0
	if len(views) > limit {
		// Fan-in returns one page per connection; keep the page bounded and
		// fair by interleaving connections round-robin.
		views = interleave(views, connOrder, limit)
		dropped = returned - len(views)
		hasMore = true
	}
	var b strings.Builder
	fmt.Fprintf(&b, "query_records %s", args.Stream)
	if args.ConnectionID != "" {
		src := args.ConnectionID
		if len(views) > 0 {
			src = views[0].sourceLabel()
		}
		fmt.Fprintf(&b, " · %s", src)
	} else if fanIn {
		fmt.Fprintf(&b, " · fan-in over %d connections", len(connOrder))
	} else if len(views) > 0 {
		fmt.Fprintf(&b, " · %s", views[0].sourceLabel())
	}
	if args.ChangesSince != "" {
		fmt.Fprintf(&b, " · changes since %s", shortTok(args.ChangesSince))
	}
	fmt.Fprintf(&b, " · %d record(s) · has_more: %t\n", len(views), hasMore)
	if meta != nil {
		if c := meta.Obj("count"); c != nil && c.Str("kind") != "" && c.Str("kind") != "none" {
			if val, ok := c.Get("value"); ok {
				fmt.Fprintf(&b, "count (%s): %v\n", c.Str("kind"), val)
			}
		}
		if w := meta.Obj("window"); w != nil {
			fmt.Fprintf(&b, "window: %s\n", compactJSON(w))
		}
	}
	if fanIn || dropped > 0 {
		var parts []string
		for _, c := range connOrder {
			parts = append(parts, fmt.Sprintf("%s %d", c, perConn[c]))
		}
		fmt.Fprintf(&b, "sources returned: %s", strings.Join(parts, ", "))
		if dropped > 0 {
			fmt.Fprintf(&b, " (showing %d of %d, interleaved by connection)", len(views), returned)
		}
		b.WriteString("\n")
	}
	for _, n := range notes {
		b.WriteString("note: " + n + "\n")
	}
	warnings := []any{}
	if meta != nil {
		for _, w := range meta.Arr("warnings") {
			if wo, ok := w.(*ojson.Object); ok {
				warnings = append(warnings, wo)
				fmt.Fprintf(&b, "warning %s: %s\n", wo.Str("code"), wo.Str("message"))
			}
		}
	}
	if len(views) == 0 {
		b.WriteString("No records matched.\n")
	}
	// Cards, shrinking previews until the page fits the text budget.
	header := b.String()
	cards := renderCards(views, fanIn || args.ConnectionID == "", queryTextBudget-len(header))
	b.WriteString(cards)
	// Continuations.
	cont := args.continuationArgs(limit)
	var next *ojson.Object
	if nextCursor != "" {
		next = cont.Clone()
		next.Set("cursor", nextCursor)
		if args.ChangesSince != "" {
			// Inside a changes batch, page with cursor only.
			next.Delete("count")
		}
		fmt.Fprintf(&b, "\nnext_cursor: %s\nnext page: %s\n", nextCursor, callLine("query_records", next))
	} else if hasMore {
		b.WriteString("\nhas_more is true but no next_cursor was returned")
		if fanIn || args.ConnectionID == "" {
			var ids []string
			for _, c := range connOrder {
				if c != "" {
					ids = append(ids, c)
				}
			}
			if len(ids) > 0 {
				one := cont.Clone()
				one.Set("connection_id", ids[0])
				fmt.Fprintf(&b, " (multi-connection fan-in cannot be paged). Page one connection at a time, e.g. %s; connections: %s", callLine("query_records", one), strings.Join(ids, ", "))
			}
		}
		b.WriteString(".\n")
	} else if len(views) > 0 {
		b.WriteString("\nEnd of results (has_more: false).\n")
	}
	if nextChanges != "" {
		resume := ojson.NewObject()
		resume.Set("stream", args.Stream)
		if args.ConnectionID != "" {
			resume.Set("connection_id", args.ConnectionID)
		}
		resume.Set("changes_since", nextChanges)
		fmt.Fprintf(&b, "next_changes_since: %s\nresume changes later: %s\n", nextChanges, callLine("query_records", resume))
	}
	// Structured output.
	sc := ojson.NewObject()
	sc.Set("object", "list")
	sc.Set("stream", args.Stream)
	if args.ConnectionID != "" {
		sc.Set("connection_id", args.ConnectionID)
	}
	var recs []any
	for _, v := range views {
		recs = append(recs, v.structured())
	}
	sc.Set("data", orEmpty(recs))
	sc.Set("has_more", hasMore)
	if nextCursor != "" {
		sc.Set("next_cursor", nextCursor)
	}
	if nextChanges != "" {
		sc.Set("next_changes_since", nextChanges)
	}
	if meta != nil {
		if c := meta.Obj("count"); c != nil {
			sc.Set("count", c)
		}
		if w := meta.Obj("window"); w != nil {
			sc.Set("window", w)
		}
	}
	if fanIn || dropped > 0 {
		pc := ojson.NewObject()
		for _, c := range connOrder {
			pc.Set(c, perConn[c])
		}
		sc.Set("per_connection", pc)
		if dropped > 0 {
			sc.Set("omitted_records", dropped)
		}
	}
	sc.Set("warnings", warnings)
	if next != nil {
		sc.Set("next", callObj("query_records", next))
	}
	return textResult(strings.TrimRight(b.String(), "\n"), sc)
}

func shortTok(s string) string {
	if len(s) > 24 {
		return s[:24] + "…"
	}
	return s
}

func interleave(views []*recordView, order []string, limit int) []*recordView {
	byConn := map[string][]*recordView{}
	for _, v := range views {
		byConn[v.Ref.ConnectionID] = append(byConn[v.Ref.ConnectionID], v)
	}
	var out []*recordView
	for len(out) < limit {
		progress := false
		for _, c := range order {
			if len(byConn[c]) == 0 {
				continue
			}
			out = append(out, byConn[c][0])
			byConn[c] = byConn[c][1:]
			progress = true
			if len(out) == limit {
				break
			}
		}
		if !progress {
			break
		}
	}
	return out
}

// renderCards renders record cards within budget characters, shrinking
// per-field previews and finally listing only handles.
func renderCards(views []*recordView, showSource bool, budget int) string {
	if budget < 2000 {
		budget = 2000
	}
	for _, p := range []int{280, 140, 60} {
		s := cardsAt(views, showSource, p, len(views))
		if len(s) <= budget {
			return s
		}
	}
	// Too large even at the smallest preview: full cards for as many records
	// as fit, then handle-only lines.
	var b strings.Builder
	full := 0
	for i := range views {
		c := cardsAt(views[i:i+1], showSource, 60, 1)
		if b.Len()+len(c) > budget-len(views)*160 && i > 0 {
			break
		}
		b.WriteString(relabel(c, i+1))
		full++
	}
	if full < len(views) {
		fmt.Fprintf(&b, "\nValues omitted for size on the remaining %d record(s); fetch one with its id, or narrow with fields:\n", len(views)-full)
		for i := full; i < len(views); i++ {
			v := views[i]
			t, _ := v.title()
			line := fmt.Sprintf("[%d] %s", i+1, v.Handle)
			if t != "" {
				line += " · " + jsonStr(t)
			}
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

func relabel(card string, n int) string {
	if strings.HasPrefix(card, "\n[1]") {
		return fmt.Sprintf("\n[%d]", n) + card[len("\n[1]"):]
	}
	return card
}

func cardsAt(views []*recordView, showSource bool, maxChars int, _ int) string {
	var b strings.Builder
	for i, v := range views {
		b.WriteString("\n")
		fmt.Fprintf(&b, "[%d] id %s", i+1, v.Handle)
		title, titleField, titleCut := v.titleCut()
		if title != "" {
			fmt.Fprintf(&b, " · title (%s): %s", titleField, jsonStr(title))
		}
		skipField := titleField
		if titleCut {
			skipField = "" // the full value is rendered below
		}
		if k, ts := v.timestamp(); ts != "" && k != titleField {
			fmt.Fprintf(&b, " · %s %s", k, ts)
		}
		b.WriteString("\n")
		if showSource {
			fmt.Fprintf(&b, "    source: %s\n", v.sourceLabel())
		}
		if v.Deleted {
			fmt.Fprintf(&b, "    deleted (tombstone)%s\n", func() string {
				if v.DeletedAt != "" {
					return " at " + v.DeletedAt
				}
				return ""
			}())
		}
		if v.Data != nil {
			for _, k := range v.Data.Keys {
				if k == skipField {
					continue
				}
				fmt.Fprintf(&b, "    %s: %s\n", k, v.renderValue(k, v.Data.M[k], maxChars))
			}
		}
		for _, rel := range v.expandedRecords() {
			if rel.Missing {
				fmt.Fprintf(&b, "    expanded %s: none\n", rel.Relation)
				continue
			}
			if len(rel.Children) == 0 {
				fmt.Fprintf(&b, "    expanded %s: none\n", rel.Relation)
				continue
			}
			var hs []string
			for j, c := range rel.Children {
				if j == 20 {
					hs = append(hs, fmt.Sprintf("… %d more", len(rel.Children)-20))
					break
				}
				h := c.Handle
				if t, _ := c.title(); t != "" {
					h += " " + jsonStr(t)
				}
				hs = append(hs, h)
			}
			more := ""
			if rel.HasMore {
				more = " (has_more: query the related stream for the rest)"
			}
			fmt.Fprintf(&b, "    expanded %s (%d): %s%s\n", rel.Relation, len(rel.Children), strings.Join(hs, ", "), more)
		}
	}
	return b.String()
}
