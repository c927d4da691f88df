package adapter

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"example.com/pdppadapter-t/internal/ojson"
	"example.com/pdppadapter-t/internal/rs"
)

type searchArgs struct {
	Q            string          `json:"q"`
	Mode         string          `json:"mode"`
	Streams      strList         `json:"streams"`
	ConnectionID string          `json:"connection_id"`
	Limit        *int            `json:"limit"`
	Cursor       string          `json:"cursor"`
	Filter       json.RawMessage `json:"filter"`
}

var searchAllowed = []string{"q", "mode", "streams", "connection_id", "limit", "cursor", "filter"}

const (
	defaultSearchLimit = 10
	evidencePreviewCap = 320
	titleLookupCap     = 25
	searchTextBudget   = 24000
)

type searchHit struct {
	Ref          recordRef
	Handle       string
	ConnectorKey string
	DisplayName  string
	AuthoredAt   string
	EmittedAt    string
	Matched      []string
	Title        string
	TitleSource  string // "field:<name>" or "fallback"
	Evidence     *evidence
	Score        any
	RecordURL    string
	Row          *streamRow
}

type evidence struct {
	Field   string
	Preview string
	Proven  bool
	Role    string
	Term    string
}

func (a *Adapter) toolSearch(ctx context.Context, tok string, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var args searchArgs
	if e := decodeArgs(raw, searchAllowed, &args); e != nil {
		return nil, e
	}
	args.Q = strings.TrimSpace(args.Q)
	args.ConnectionID = strings.TrimSpace(args.ConnectionID)
	if args.Q == "" {
		return nil, argErr("q", "q (search text) is required")
	}
	path := "/v1/search"
	switch args.Mode {
	case "", "lexical":
		args.Mode = "lexical"
	case "semantic":
		path = "/v1/search/semantic"
	case "hybrid":
		path = "/v1/search/hybrid"
		if args.Cursor != "" {
			return nil, argErr("cursor", "hybrid search has no cursor paging; use mode lexical or semantic to page, or raise limit")
		}
	default:
		return nil, argErr("mode", `mode must be "lexical", "semantic" or "hybrid"`)
	}
	if len(args.Filter) > 0 && string(args.Filter) != "null" && len(args.Streams) != 1 {
		return nil, argErr("filter", "filter needs exactly one stream in streams")
	}
	limit := defaultSearchLimit
	var notes []string
	if args.Limit != nil {
		limit = *args.Limit
		if limit < 1 {
			return nil, argErr("limit", "limit must be between 1 and 100")
		}
		if limit > maxPageLimit {
			notes = append(notes, fmt.Sprintf("limit %d was reduced to the maximum %d", limit, maxPageLimit))
			limit = maxPageLimit
		}
	}
	q := url.Values{}
	q.Set("q", args.Q)
	q.Set("limit", strconv.Itoa(limit))
	for _, s := range args.Streams {
		q.Add("streams", s)
	}
	if args.ConnectionID != "" {
		q.Set("connection_id", args.ConnectionID)
	}
	if args.Cursor != "" {
		q.Set("cursor", args.Cursor)
	}
	if e := encodeFilter(args.Filter, q); e != nil {
		return nil, e
	}
	resp, err := a.rs.Get(ctx, tok, path, q)
	if err != nil {
		if re, ok := rs.AsError(err); ok && re.Status == 404 && args.Mode != "lexical" && (re.Extra["framework_error"] == true || re.Code == "not_found") {
			e := newErr("search_mode_unavailable", "not_found_error", fmt.Sprintf("this resource server does not offer %s search (%s)", args.Mode, path))
			e.Param = "mode"
			e.Hint = `Retry with mode:"lexical" (the default).`
			return nil, e
		}
		return nil, err
	}
	body, derr := ojson.DecodeObject(resp.Body)
	if derr != nil {
		return nil, newErr("rs_invalid_json", "api_error", "the resource server returned a malformed search result")
	}
	var hits []*searchHit
	for _, hv := range body.Arr("data") {
		if ho, ok := hv.(*ojson.Object); ok {
			hits = append(hits, parseHit(ho, args.Mode))
		}
	}
	hasMore, _ := body.Bool("has_more")
	nextCursor := body.Str("next_cursor")
	overLimit := 0
	if len(hits) > limit {
		// limit is a global cap on merged hits.
		overLimit = len(hits) - limit
		hits = hits[:limit]
		hasMore = true
	}
	a.enrichHits(ctx, tok, hits)
	return a.renderSearch(args, limit, notes, body, hits, hasMore, nextCursor, overLimit), nil
}

func parseHit(ho *ojson.Object, mode string) *searchHit {
	h := &searchHit{}
	h.Ref.Stream = ho.Str("stream")
	h.Ref.RecordID = ho.Str("record_key")
	if h.Ref.RecordID == "" {
		h.Ref.RecordID = ho.Str("record_id")
	}
	if h.Ref.RecordID == "" {
		h.Ref.RecordID = ho.Str("id")
	}
	h.Ref.ConnectionID = ho.Str("connection_id")
	if h.Ref.ConnectionID == "" {
		h.Ref.ConnectionID = ho.Str("connector_instance_id")
	}
	if src := ho.Obj("source"); src != nil {
		if h.Ref.ConnectionID == "" {
			h.Ref.ConnectionID = src.Str("connection_id")
		}
		h.ConnectorKey = src.Str("connector_key")
	}
	h.Handle = h.Ref.Handle()
	if k := ho.Str("connector_key"); k != "" {
		h.ConnectorKey = k
	}
	if h.ConnectorKey == "" {
		h.ConnectorKey = ho.Str("connector_id")
	}
	h.DisplayName = ho.Str("display_name")
	h.AuthoredAt = ho.Str("authored_at")
	h.EmittedAt = ho.Str("emitted_at")
	h.Matched = ojson.Strings(ho.Arr("matched_fields"))
	h.RecordURL = ho.Str("record_url")
	if s, ok := ho.Get("score"); ok {
		h.Score = s
	} else if s, ok := ho.Get("scores"); ok {
		h.Score = s
	}
	if t := ho.Str("title"); t != "" {
		h.Title, h.TitleSource = oneLine(t), "source"
	}
	// Evidence: prefer the RS evidence descriptor, then the snippet.
	for _, ev := range ho.Arr("evidence_excerpts") {
		eo, ok := ev.(*ojson.Object)
		if !ok {
			continue
		}
		mt := parseMarks(eo.Str("preview_text"))
		if mt.hasMark() {
			h.Evidence = &evidence{Field: eo.Str("field_path"), Preview: eo.Str("preview_text"), Proven: true, Term: mt.firstMarkedTerm()}
			break
		}
	}
	if h.Evidence == nil {
		field, text := "", ""
		switch sn := ho.M["snippet"].(type) {
		case *ojson.Object:
			field, text = sn.Str("field"), sn.Str("text")
		case string:
			text = sn
		}
		if text != "" {
			mt := parseMarks(text)
			proven := mt.hasMark() && (field == "" || len(h.Matched) == 0 || contains(h.Matched, field))
			h.Evidence = &evidence{Field: field, Preview: text, Proven: proven, Term: mt.firstMarkedTerm()}
		}
	}
	return h
}

// enrichHits adds connector identity, roles and source titles. Titles come
// from the manifest's primary-title field, read with a projected record
// read (fields=<title field>) per hit, bounded in count and time.
func (a *Adapter) enrichHits(ctx context.Context, tok string, hits []*searchHit) {
	if len(hits) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 8*time.Second)
	defer cancel()
	streams := map[string]*schemaDoc{}
	var order []string
	for _, h := range hits {
		if _, ok := streams[h.Ref.Stream]; !ok && h.Ref.Stream != "" {
			streams[h.Ref.Stream] = nil
			order = append(order, h.Ref.Stream)
		}
	}
	if len(order) > 10 {
		order = order[:10]
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, s := range order {
		wg.Add(1)
		go func(s string) {
			defer wg.Done()
			doc, err := a.streamSchema(ctx, tok, s, "")
			if err == nil {
				mu.Lock()
				streams[s] = doc
				mu.Unlock()
			}
		}(s)
	}
	wg.Wait()
	for _, h := range hits {
		doc := streams[h.Ref.Stream]
		if doc == nil {
			continue
		}
		h.Row = rowFor(doc, h.Ref.Stream, h.Ref.ConnectionID)
		if src, ok := doc.connectionIndex()[h.Ref.ConnectionID]; ok {
			if src.ConnectorKey != "" {
				h.ConnectorKey = src.ConnectorKey
			}
			if h.DisplayName == "" {
				h.DisplayName = src.DisplayName
			}
		} else if h.Row != nil && h.ConnectorKey == "" {
			h.ConnectorKey = h.Row.ConnectorKey
		}
		if h.Evidence != nil && h.Row != nil {
			if f := h.Row.field(h.Evidence.Field); f != nil {
				h.Evidence.Role = f.Role
			}
		}
	}
	// Source titles.
	sem := make(chan struct{}, 4)
	n := 0
	for _, h := range hits {
		if h.Title != "" || h.Row == nil {
			continue
		}
		tf := h.Row.roleField("primary-title")
		if tf == "" {
			continue
		}
		// The highlighted snippet may already be the complete title field.
		if h.Evidence != nil && h.Evidence.Field == tf {
			p := parseMarks(h.Evidence.Preview).plain()
			if !strings.HasPrefix(p, "…") && !strings.HasSuffix(p, "…") {
				h.Title, h.TitleSource = oneLine(p), "field:"+tf
				continue
			}
		}
		if n >= titleLookupCap {
			continue
		}
		n++
		wg.Add(1)
		go func(h *searchHit, tf string) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			q := url.Values{}
			q.Set("fields", tf)
			if h.Ref.ConnectionID != "" {
				q.Set("connection_id", h.Ref.ConnectionID)
			}
			resp, err := a.rs.Get(ctx, tok, recordPath(h.Ref.Stream, h.Ref.RecordID), q)
			if err != nil {
				return
			}
			o, err := ojson.DecodeObject(resp.Body)
			if err != nil {
				return
			}
			if d := o.Obj("data"); d != nil {
				if s, ok := d.M[tf].(string); ok && strings.TrimSpace(s) != "" {
					t, _, cut := preview(oneLine(s), 160)
					if cut {
						t += "…"
					}
					mu.Lock()
					h.Title, h.TitleSource = t, "field:"+tf
					mu.Unlock()
				}
			}
		}(h, tf)
	}
	wg.Wait()
	for _, h := range hits {
		if h.Title == "" {
			h.Title, h.TitleSource = fallbackTitle(h), "fallback"
		}
	}
}

// fallbackTitle is a human-readable identity that is never the snippet:
// source label, stream, record id and the authored/event timestamp
// (preferred over the ingestion timestamp).
func fallbackTitle(h *searchHit) string {
	var parts []string
	if h.DisplayName != "" {
		parts = append(parts, h.DisplayName)
	} else if h.ConnectorKey != "" {
		parts = append(parts, h.ConnectorKey)
	}
	parts = append(parts, h.Ref.Stream+" "+h.Ref.RecordID)
	if h.AuthoredAt != "" {
		parts = append(parts, h.AuthoredAt)
	} else if h.EmittedAt != "" {
		parts = append(parts, "ingested "+h.EmittedAt)
	}
	return strings.Join(parts, " · ")
}

func (h *searchHit) readArgs(field string, kv ...any) *ojson.Object {
	o := ojson.NewObject()
	o.Set("id", h.Handle)
	o.Set("field", field)
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

// textField picks the field to suggest for further reading: the
// manifest primary-text field, else the matched field.
func (h *searchHit) textField() string {
	if h.Row != nil {
		if f := h.Row.roleField("primary-text"); f != "" {
			return f
		}
	}
	if h.Evidence != nil && h.Evidence.Field != "" {
		return h.Evidence.Field
	}
	if len(h.Matched) > 0 {
		return h.Matched[0]
	}
	return ""
}

func (a *Adapter) renderSearch(args searchArgs, limit int, notes []string, body *ojson.Object, hits []*searchHit, hasMore bool, nextCursor string, overLimit int) *mcp.CallToolResult {
	var b strings.Builder
	fmt.Fprintf(&b, "search %s · %s", jsonStr(args.Q), args.Mode)
	if len(args.Streams) > 0 {
		fmt.Fprintf(&b, " · streams %s", strings.Join(args.Streams, ","))
	}
	if args.ConnectionID != "" {
		fmt.Fprintf(&b, " · connection_id %s", args.ConnectionID)
	} else {
		b.WriteString(" · all granted connections")
	}
	fmt.Fprintf(&b, " · %d hit(s) (limit %d)", len(hits), limit)
	meta := body.Obj("meta")
	var count any
	countAcc := ""
	if meta != nil {
		if c, ok := meta.Get("count"); ok {
			if co, isObj := c.(*ojson.Object); isObj {
				if v, ok := co.Get("value"); ok {
					count = v
					countAcc = co.Str("kind")
				}
			} else if c != nil {
				count = c
				countAcc = meta.Str("count_accuracy")
			}
		}
	}
	if count != nil {
		fmt.Fprintf(&b, " · total matches %v", count)
		if countAcc != "" {
			fmt.Fprintf(&b, " (%s)", countAcc)
		}
	}
	fmt.Fprintf(&b, " · has_more: %t\n", hasMore)
	// Source mix.
	type mixEntry struct {
		conn, key, name string
		n               int
	}
	var mix []*mixEntry
	mixIdx := map[string]*mixEntry{}
	for _, h := range hits {
		k := h.Ref.ConnectionID
		m := mixIdx[k]
		if m == nil {
			m = &mixEntry{conn: k, key: h.ConnectorKey, name: h.DisplayName}
			mixIdx[k] = m
			mix = append(mix, m)
		}
		m.n++
	}
	if len(mix) > 1 {
		var parts []string
		for _, m := range mix {
			s := m.conn
			if m.name != "" {
				s += " " + jsonStr(m.name)
			}
			if m.key != "" {
				s += " (" + m.key + ")"
			}
			parts = append(parts, fmt.Sprintf("%s: %d", s, m.n))
		}
		b.WriteString("source mix: " + strings.Join(parts, " · ") + "\n")
	}
	for _, n := range notes {
		b.WriteString("note: " + n + "\n")
	}
	if overLimit > 0 {
		fmt.Fprintf(&b, "note: the server returned %d hit(s) beyond limit; they were dropped to honour the global limit\n", overLimit)
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
	if len(hits) == 0 {
		b.WriteString("No hits. Try other words, mode:\"semantic\", or check schema(stream) for searchable fields.\n")
	}
	var results []any
	for i, h := range hits {
		var hb strings.Builder
		fmt.Fprintf(&hb, "\n[%d] %s\n", i+1, h.Title)
		fmt.Fprintf(&hb, "    id: %s\n", h.Handle)
		src := []string{sourceLabel(h.ConnectorKey, h.Ref.ConnectionID, h.DisplayName), "stream " + h.Ref.Stream, "record_id " + h.Ref.RecordID}
		if h.AuthoredAt != "" {
			src = append(src, "authored "+h.AuthoredAt)
		}
		fmt.Fprintf(&hb, "    source: %s\n", strings.Join(src, " · "))
		ro := ojson.NewObject()
		ro.Set("id", h.Handle)
		ro.Set("title", h.Title)
		ro.Set("url", a.recordURL(h.Ref))
		ro.Set("connection_id", h.Ref.ConnectionID)
		ro.Set("connector_key", h.ConnectorKey)
		ro.Set("stream", h.Ref.Stream)
		ro.Set("record_id", h.Ref.RecordID)
		if h.DisplayName != "" {
			ro.Set("display_name", h.DisplayName)
		}
		if h.AuthoredAt != "" {
			ro.Set("authored_at", h.AuthoredAt)
		}
		if h.EmittedAt != "" {
			ro.Set("emitted_at", h.EmittedAt)
		}
		if len(h.Matched) > 0 {
			ro.Set("matched_fields", h.Matched)
		}
		ev := h.Evidence
		switch {
		case ev != nil && ev.Proven && ev.Role == "metadata":
			p := boundMarked(ev.Preview, evidencePreviewCap)
			fmt.Fprintf(&hb, "    matched metadata field %s: %s\n", ev.Field, p)
			tf := h.textField()
			if tf != "" && tf != ev.Field {
				fmt.Fprintf(&hb, "    no body text was matched; read the text: read_record_field %s\n", compactJSON(h.readArgs(tf)))
			}
			fmt.Fprintf(&hb, "    whole record: fetch {\"id\":%s}\n", jsonStr(h.Handle))
			ro.Set("evidence", evidenceObj(ev, p, h.readArgs(ev.Field, "q", ev.Term)))
		case ev != nil && ev.Proven:
			p := boundMarked(ev.Preview, evidencePreviewCap)
			fmt.Fprintf(&hb, "    evidence (%s): %s\n", ev.Field, p)
			ra := h.readArgs(ev.Field, "q", ev.Term, "before_chars", 400, "after_chars", 800)
			if ev.Term == "" {
				ra = h.readArgs(ev.Field)
			}
			fmt.Fprintf(&hb, "    read around the match: read_record_field %s\n", compactJSON(ra))
			if tf := h.textField(); tf != "" && tf != ev.Field {
				fmt.Fprintf(&hb, "    main text: read_record_field %s\n", compactJSON(h.readArgs(tf)))
			}
			ro.Set("evidence", evidenceObj(ev, p, ra))
		default:
			what := "no highlighted text evidence was returned for this hit"
			if args.Mode != "lexical" {
				what = args.Mode + " match; no highlighted text evidence"
			}
			if len(h.Matched) > 0 {
				if h.metadataOnly() {
					what = "matched metadata only (" + strings.Join(h.Matched, ", ") + "); no body text evidence"
				} else {
					what += " (matched fields: " + strings.Join(h.Matched, ", ") + ")"
				}
			}
			fmt.Fprintf(&hb, "    %s\n", what)
			if tf := h.textField(); tf != "" {
				fmt.Fprintf(&hb, "    inspect: read_record_field %s or fetch {\"id\":%s}\n", compactJSON(h.readArgs(tf)), jsonStr(h.Handle))
				ro.Set("evidence", nil)
				ro.Set("read", callObj("read_record_field", h.readArgs(tf)))
			} else {
				fmt.Fprintf(&hb, "    inspect: fetch {\"id\":%s}\n", jsonStr(h.Handle))
				ro.Set("evidence", nil)
			}
		}
		if h.Score != nil {
			ro.Set("score", h.Score)
		}
		ro.Set("title_source", h.TitleSource)
		if b.Len()+hb.Len() > searchTextBudget {
			fmt.Fprintf(&b, "\n[%d] %s · id %s (details omitted for size)\n", i+1, h.Title, h.Handle)
		} else {
			b.WriteString(hb.String())
		}
		results = append(results, ro)
	}
	var next *ojson.Object
	if nextCursor != "" {
		next = ojson.NewObject()
		next.Set("q", args.Q)
		if args.Mode != "lexical" {
			next.Set("mode", args.Mode)
		}
		if len(args.Streams) > 0 {
			next.Set("streams", []string(args.Streams))
		}
		if args.ConnectionID != "" {
			next.Set("connection_id", args.ConnectionID)
		}
		if f := filterObject(args.Filter); f != nil {
			next.Set("filter", f)
		}
		next.Set("limit", limit)
		next.Set("cursor", nextCursor)
		fmt.Fprintf(&b, "\nnext_cursor: %s\nnext page: %s\n", nextCursor, callLine("search", next))
	} else if hasMore {
		b.WriteString("\nhas_more is true but this search mode returns no cursor; narrow with streams/connection_id or raise limit (max 100).\n")
	}
	sc := ojson.NewObject()
	sc.Set("object", "list")
	sc.Set("query", args.Q)
	sc.Set("mode", args.Mode)
	sc.Set("results", orEmpty(results))
	sc.Set("has_more", hasMore)
	if nextCursor != "" {
		sc.Set("next_cursor", nextCursor)
	}
	if count != nil {
		sc.Set("count", count)
		if countAcc != "" {
			sc.Set("count_accuracy", countAcc)
		}
	}
	var mixOut []any
	for _, m := range mix {
		mo := ojson.NewObject()
		mo.Set("connection_id", m.conn)
		mo.Set("connector_key", m.key)
		if m.name != "" {
			mo.Set("display_name", m.name)
		}
		mo.Set("hits", m.n)
		mixOut = append(mixOut, mo)
	}
	sc.Set("source_mix", orEmpty(mixOut))
	if meta != nil {
		if rc := meta.Obj("recall"); rc != nil {
			sc.Set("recall", rc)
		}
	}
	sc.Set("warnings", warnings)
	if next != nil {
		sc.Set("next", callObj("search", next))
	}
	return textResult(strings.TrimRight(b.String(), "\n"), sc)
}

func evidenceObj(ev *evidence, preview string, read *ojson.Object) *ojson.Object {
	o := ojson.NewObject()
	o.Set("field", ev.Field)
	o.Set("preview", preview)
	o.Set("proven_match", ev.Proven)
	if ev.Role != "" {
		o.Set("role", ev.Role)
	}
	o.Set("read", callObj("read_record_field", read))
	return o
}

// recordURL is the canonical RS URL of a record.
func (a *Adapter) recordURL(r recordRef) string {
	u := a.rs.AbsURL(recordPath(r.Stream, r.RecordID))
	if r.ConnectionID != "" {
		u += "?connection_id=" + url.QueryEscape(r.ConnectionID)
	}
	return u
}

// metadataOnly reports whether every matched field is declared with the
// metadata role.
func (h *searchHit) metadataOnly() bool {
	if h.Row == nil || len(h.Matched) == 0 {
		return false
	}
	for _, m := range h.Matched {
		f := h.Row.field(m)
		if f == nil || f.Role != "metadata" {
			return false
		}
	}
	return true
}
