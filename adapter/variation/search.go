package variation

import (
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	json "github.com/segmentio/encoding/json"
)

// Variations of search: the hits the adapter takes from the RS, and what
// its text and structuredContent show of them.

// onHits rewrites the hits of the RS's search answers, as JSON objects.
func onHits(f func(hits []map[string]any)) func(*Seams) {
	return onBody(pathIs("/v1/search"), func(_ *http.Request, body []byte) []byte {
		var env map[string]any
		if decodeJSON(body, &env) != nil || env == nil {
			return body
		}
		list, _ := env["data"].([]any)
		hits := make([]map[string]any, 0, len(list))
		for _, h := range list {
			if m, ok := h.(map[string]any); ok {
				hits = append(hits, m)
			}
		}
		f(hits)
		return mustJSON(env)
	})
}

// snippetText is a hit's snippet, a string or {text}.
func snippetText(h map[string]any) string {
	switch s := h["snippet"].(type) {
	case string:
		return s
	case map[string]any:
		t, _ := s["text"].(string)
		return t
	}
	return ""
}

func untitled(h map[string]any) bool { t, _ := h["title"].(string); return t == "" }

func snippetAsTitle(hits []map[string]any) {
	for _, h := range hits {
		if s := snippetText(h); untitled(h) && s != "" {
			h["title"] = s
		}
	}
}

// previewAsTitle titles a hit whose title is the adapter's fallback
// (connection / stream / time) by its first evidence preview, with its
// highlight tags removed, and drops the snippet key, so the title is the
// snippet shown under another name.
func previewAsTitle(h map[string]any) {
	title, _ := h["title"].(string)
	label, _ := h["display_name"].(string)
	ex := firstEvidence(h)
	preview, _ := ex["preview_text"].(string)
	if label == "" || !strings.HasPrefix(title, label+" / ") || preview == "" {
		return
	}
	delete(h, "snippet")
	h["title"] = strings.NewReplacer("<mark>", "", "</mark>", "").Replace(preview)
}

// titleFromEmittedAt hides the authored time of untitled hits, so their
// fallback titles use emitted_at.
func titleFromEmittedAt(hits []map[string]any) {
	for _, h := range hits {
		if e, _ := h["emitted_at"].(string); untitled(h) && e != "" {
			delete(h, "authored_at")
		}
	}
}

// firstEvidence is a hit's first evidence excerpt, or nil.
func firstEvidence(h map[string]any) map[string]any {
	list, _ := h["evidence_excerpts"].([]any)
	if len(list) == 0 {
		return nil
	}
	e, _ := list[0].(map[string]any)
	return e
}

// rotateEvidencePreviews swaps first evidence previews between hits, so
// each shows another hit's text.
func rotateEvidencePreviews(hits []map[string]any) {
	var with []map[string]any
	for _, h := range hits {
		if e := firstEvidence(h); e != nil {
			with = append(with, e)
		}
	}
	for i := 0; i+1 < len(with); i++ {
		with[i]["preview_text"], with[i+1]["preview_text"] = with[i+1]["preview_text"], with[i]["preview_text"]
	}
}

var firstMarkRe = regexp.MustCompile(`<mark>[^<]+</mark>`)

// evidenceFieldRe is the field_path= of an evidence line of search's text.
var evidenceFieldRe = regexp.MustCompile(`(?m)^(\d+\. result=\d+ field_path=)`)

func evidenceTermOnly(hits []map[string]any) {
	for _, h := range hits {
		list, _ := h["evidence_excerpts"].([]any)
		for _, x := range list {
			if e, ok := x.(map[string]any); ok {
				p, _ := e["preview_text"].(string)
				e["preview_text"] = firstMarkRe.FindString(p)
			}
		}
	}
}

// evidenceAfterMatch shows each evidence preview from just after its
// match, its marks gone: text of the proven window, but not the match.
func evidenceAfterMatch(hits []map[string]any) {
	for _, h := range hits {
		list, _ := h["evidence_excerpts"].([]any)
		for _, x := range list {
			if e, ok := x.(map[string]any); ok {
				p, _ := e["preview_text"].(string)
				if at := firstMarkRe.FindStringIndex(p); at != nil {
					e["preview_text"] = strings.TrimSpace(strings.NewReplacer("<mark>", "", "</mark>", "").Replace(p[at[1]:]))
				}
			}
		}
	}
}

// markWordBefore moves each evidence preview's mark from the match to the
// word before it.
func markWordBefore(hits []map[string]any) {
	for _, h := range hits {
		list, _ := h["evidence_excerpts"].([]any)
		for _, x := range list {
			if e, ok := x.(map[string]any); ok {
				p, _ := e["preview_text"].(string)
				e["preview_text"] = wordBeforeMarkRe.ReplaceAllString(p, "<mark>$1</mark>$2$3")
			}
		}
	}
}

var wordBeforeMarkRe = regexp.MustCompile(`(\w+)(\W+)<mark>([^<]*)</mark>`)

// inventEvidence gives every hit without evidence a body excerpt that
// nothing in the record backs.
func inventEvidence(hits []map[string]any) {
	for _, h := range hits {
		if list, _ := h["evidence_excerpts"].([]any); len(list) > 0 {
			continue
		}
		preview, _ := h["title"].(string)
		if preview == "" {
			preview, _ = h["stream"].(string)
		}
		h["evidence_excerpts"] = []any{map[string]any{"field_path": "body", "preview_text": preview, "truncated": false}}
	}
}

// perConnectionSearchLimit asks the RS for 100 hits and keeps limit hits
// of each connection, instead of limit merged hits.
func perConnectionSearchLimit() func(*Seams) {
	return all(
		tracked(onArgs("search", func(ctx context.Context, args map[string]json.RawMessage) {
			limit := 25
			_ = json.Unmarshal(args["limit"], &limit)
			callOf(ctx).vars["limit"] = limit
			args["limit"] = json.RawMessage("100")
		})),
		onBody(pathIs("/v1/search"), func(r *http.Request, body []byte) []byte {
			st := callOf(r.Context())
			if st == nil {
				return body
			}
			limit, _ := st.vars["limit"].(int)
			var env map[string]any
			if decodeJSON(body, &env) != nil || env == nil {
				return body
			}
			list, _ := env["data"].([]any)
			n, kept := map[any]int{}, []any{}
			for _, h := range list {
				m, _ := h.(map[string]any)
				if n[m["connection_id"]]++; n[m["connection_id"]] <= limit {
					kept = append(kept, h)
				}
			}
			env["data"] = kept
			return mustJSON(env)
		}))
}

// onSearchText rewrites search's text.
func onSearchText(f func(string) string) func(*Seams) {
	return withMiddleware(onResult("search", func(_ *mcp.CallToolRequest, r *result) {
		if !r.IsError {
			r.setText(f(r.text()))
		}
	}))
}

// onSearchResults rewrites search's structuredContent.results.
func onSearchResults(f func(res map[string]any)) func(*Seams) {
	return withMiddleware(onResult("search", func(_ *mcp.CallToolRequest, r *result) {
		if r.IsError {
			return
		}
		sc := r.structured()
		list, _ := sc["results"].([]any)
		for _, x := range list {
			if m, ok := x.(map[string]any); ok {
				f(m)
			}
		}
		r.setStructured(sc)
	}))
}

var sourceMixRe = regexp.MustCompile(` source_mix=(\S+)`)

func dropSourceMix(text string) string { return sourceMixRe.ReplaceAllString(text, "") }

var mixCountRe = regexp.MustCompile(`:(\d+)}$`)

// miscountSourceMix counts the hits of every connection after the first twice.
func miscountSourceMix(text string) string {
	return sourceMixRe.ReplaceAllStringFunc(text, func(m string) string {
		parts := strings.Split(strings.TrimPrefix(m, " source_mix="), "|")
		for i := 1; i < len(parts); i++ {
			end := strings.TrimSuffix(parts[i], ".")
			parts[i] = mixCountRe.ReplaceAllStringFunc(end, func(c string) string {
				n, _ := strconv.Atoi(c[1 : len(c)-1])
				return ":" + strconv.Itoa(2*n) + "}"
			}) + parts[i][len(end):]
		}
		return " source_mix=" + strings.Join(parts, "|")
	})
}

// collapseSourceMix credits every hit to the mix's first connection.
func collapseSourceMix(text string) string {
	return sourceMixRe.ReplaceAllStringFunc(text, func(m string) string {
		parts := strings.Split(strings.TrimSuffix(strings.TrimPrefix(m, " source_mix="), "."), "|")
		total := 0
		for _, p := range parts {
			if c := mixCountRe.FindStringSubmatch(p); c != nil {
				n, _ := strconv.Atoi(c[1])
				total += n
			}
		}
		if len(parts) < 2 || total == 0 {
			return m
		}
		return " source_mix=" + mixCountRe.ReplaceAllString(parts[0], ":"+strconv.Itoa(total)+"}") + strings.TrimPrefix(m, strings.TrimSuffix(m, "."))
	})
}

// hideFetchIDs lists search's top results, and drops first_fetch_id,
// without the hits' ids (evidence lines keep theirs), and points at
// structuredContent for the ids.
func hideFetchIDs(text string) string {
	text = firstFetchIDRe.ReplaceAllString(text, "")
	return topResultIDRe.ReplaceAllString(text, "$1") + "\nIds are in structuredContent.results."
}

var topResultIDRe = regexp.MustCompile(`(?m)^(\d+\. )id=\S+ `)

func hideEvidenceLines(text string) string {
	start := strings.Index(text, "\nEvidence excerpts:\n")
	end := strings.Index(text, "\nTop results:")
	if start < 0 || end < start {
		return text
	}
	return text[:start] + text[end:]
}

var evidenceLineRe = regexp.MustCompile(`(?m)^(\d+\. result=\d+ field_path=(\S+) snippet=".*") id=(\S+) complete=(?:true|false) read=read_record_field$`)

// fieldWindowURI is a pdpp://field-window/ handle nothing can read.
func fieldWindowURI(id, field string) string {
	return "pdpp://field-window/" + base64.RawURLEncoding.EncodeToString([]byte(id+"#"+field))
}

// resourceOnlyEvidence points every evidence excerpt at a field-window
// resource instead of a read_record_field call.
func resourceOnlyEvidence() func(*Seams) {
	return all(
		onSearchResults(func(res map[string]any) {
			list, _ := res["evidence_excerpts"].([]any)
			for _, x := range list {
				if e, ok := x.(map[string]any); ok {
					e["read"] = map[string]any{"uri": fieldWindowURI(str(res["id"]), str(e["field_path"]))}
				}
			}
		}),
		onSearchText(func(text string) string {
			return evidenceLineRe.ReplaceAllStringFunc(text, func(l string) string {
				m := evidenceLineRe.FindStringSubmatch(l)
				return m[1] + " uri=" + fieldWindowURI(m[3], m[2])
			})
		}))
}

var topLineRe = regexp.MustCompile(`(?m)^\d+\. id=(\S+) title=.*$`)

// emitDeadRecordURI shows each hit with a pdpp://record/v2/ URI that fetch
// does not take.
func emitDeadRecordURI() func(*Seams) {
	uri := func(id string) string { return "pdpp://record/v2/" + id }
	return all(
		onSearchResults(func(res map[string]any) { res["uri"] = uri(str(res["id"])) }),
		onSearchText(func(text string) string {
			return topLineRe.ReplaceAllStringFunc(text, func(l string) string {
				return l + " uri=" + uri(topLineRe.FindStringSubmatch(l)[1])
			})
		}))
}

var (
	moreResultsRe = regexp.MustCompile(`more_results=(\d+); next: search \{[^\n]*\}`)
	moreRecordsRe = regexp.MustCompile(`more_records=(\d+); next: query_records \{[^\n]*\}\n`)
	moreFieldsRe  = regexp.MustCompile(`more_fields=(\d+); next: fetch \{[^\n]*\}`)
)

// structuredOnlyOmissions points the omission markers of search and
// query_records at structuredContent instead of the call that continues.
func structuredOnlyOmissions() func(*Seams) {
	return all(
		onSearchText(func(text string) string {
			return moreResultsRe.ReplaceAllString(text, "more_results=$1 (structuredContent.results)")
		}),
		onRecordsText(func(text string) string {
			text = moreRecordsRe.ReplaceAllString(text, "more_records=$1; followup=rerun_cursor_or_limit; ")
			return moreFieldsRe.ReplaceAllString(text, "more_fields=$1 (structuredContent.content_ladder)")
		}))
}

// cliOmitReadCommand drops the read-field command from the search
// command's output.
func cliOmitReadCommand(s *Seams) {
	if s.Stdout != nil {
		s.Stdout = dropWrites{s.Stdout, "   read: "}
	}
}

// dropWrites drops every write that starts with prefix (the search
// command writes one line per write).
type dropWrites struct {
	io.Writer
	prefix string
}

func (d dropWrites) Write(b []byte) (int, error) {
	if strings.HasPrefix(string(b), d.prefix) {
		return len(b), nil
	}
	return d.Writer.Write(b)
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// evidenceIDLineRe is one of pdpp-mcp's search evidence lines, with its id.
var evidenceIDLineRe = regexp.MustCompile(`(?m)^(\d+\. result=\d+ field_path=.* id=)(\S+)( complete=)`)

// rotateEvidenceIDs gives each evidence line the next line's id (the last
// the first's).
func rotateEvidenceIDs(text string) string { return rotateGroup(evidenceIDLineRe, text, 2) }

// rotateEvidenceReads gives each hit's evidence read the next evidence
// hit's id, in structuredContent.
func rotateEvidenceReads(_ *mcp.CallToolRequest, r *result) {
	if r.IsError {
		return
	}
	sc := r.structured()
	list, _ := sc["results"].([]any)
	var args []map[string]any
	var ids []any
	for _, x := range list {
		h, _ := x.(map[string]any)
		ev, _ := h["evidence_excerpts"].([]any)
		for _, e := range ev {
			em, _ := e.(map[string]any)
			rd, _ := em["read"].(map[string]any)
			if a, ok := rd["args"].(map[string]any); ok {
				args = append(args, a)
				ids = append(ids, a["id"])
			}
		}
	}
	if len(args) < 2 {
		return
	}
	for i, a := range args {
		a["id"] = ids[(i+1)%len(ids)]
	}
	r.setStructured(sc)
}

// unscopeNextPageIDs drops the connection part of each hit id
// (conn/stream:id) of a search page read with a cursor.
func unscopeNextPageIDs(req *mcp.CallToolRequest, r *result) {
	var in struct {
		Cursor string `json:"cursor"`
	}
	if r.IsError || json.Unmarshal(req.Params.Arguments, &in) != nil || in.Cursor == "" {
		return
	}
	sc := r.structured()
	list, _ := sc["results"].([]any)
	var pairs []string
	for _, x := range list {
		h, _ := x.(map[string]any)
		id, _ := h["id"].(string)
		if conn, rest, ok := strings.Cut(id, "/"); ok && conn != "" {
			pairs = append(pairs, id, rest)
		}
	}
	if len(pairs) == 0 {
		return
	}
	rep := strings.NewReplacer(pairs...)
	r.setText(rep.Replace(r.text()))
	b, _ := json.Marshal(sc)
	var out map[string]any
	if json.Unmarshal([]byte(rep.Replace(string(b))), &out) == nil {
		r.setStructured(out)
	}
}

// readBodyForMetadataHits prints, on the text line of each hit that
// carries no evidence (a metadata-only match), a read of the record's body
// around the searched text, which the body does not hold.
func readBodyForMetadataHits(req *mcp.CallToolRequest, r *result) {
	var in struct {
		Q string `json:"q"`
	}
	if r.IsError || json.Unmarshal(req.Params.Arguments, &in) != nil || in.Q == "" {
		return
	}
	list, _ := r.structured()["results"].([]any)
	text := r.text()
	for _, x := range list {
		h, _ := x.(map[string]any)
		id, _ := h["id"].(string)
		if ev, _ := h["evidence_excerpts"].([]any); id == "" || len(ev) > 0 {
			continue
		}
		read := " read=read_record_field " + compactJSON(map[string]any{"id": id, "field_path": "body", "q": in.Q})
		text = regexp.MustCompile(`(?m)^(\d+\. id=`+regexp.QuoteMeta(id)+` .*)$`).ReplaceAllString(text, "${1}"+strings.ReplaceAll(read, "$", "$$"))
	}
	r.setText(text)
}

// firstPageSaysNoMore makes a first search page (no cursor) that has more
// say has_more false, in text and structuredContent; its cursor stays.
func firstPageSaysNoMore(req *mcp.CallToolRequest, r *result) {
	var in struct {
		Cursor string `json:"cursor"`
	}
	if r.IsError || json.Unmarshal(req.Params.Arguments, &in) != nil || in.Cursor != "" {
		return
	}
	sc := r.structured()
	data, _ := sc["data"].(map[string]any)
	if data["has_more"] != true {
		return
	}
	data["has_more"] = false
	r.setStructured(sc)
	r.setText(strings.Replace(r.text(), "has_more=true", "has_more=false", 1))
}

// cutPreviewsSayComplete labels each cut evidence preview of a search
// complete: in its text line, or in structuredContent's preview_status.
func cutPreviewsSayComplete(inText bool) func(*mcp.CallToolRequest, *result) {
	return func(_ *mcp.CallToolRequest, r *result) {
		if r.IsError {
			return
		}
		if inText {
			r.setText(strings.ReplaceAll(r.text(), " complete=false ", " complete=true "))
			return
		}
		sc := r.structured()
		list, _ := sc["results"].([]any)
		for _, x := range list {
			h, _ := x.(map[string]any)
			ev, _ := h["evidence_excerpts"].([]any)
			for _, e := range ev {
				if em, _ := e.(map[string]any); em["preview_status"] == "truncated" {
					em["preview_status"] = "complete"
				}
			}
		}
		r.setStructured(sc)
	}
}

// firstStreamHandles gives each hit of another stream than the first
// hit's an id naming the first hit's stream, in text and
// structuredContent: its record stays right, its handle fetches nothing.
func firstStreamHandles(_ *mcp.CallToolRequest, r *result) {
	if r.IsError {
		return
	}
	list, _ := r.structured()["results"].([]any)
	var pairs []string
	first := ""
	for _, x := range list {
		h, _ := x.(map[string]any)
		id, _ := h["id"].(string)
		stream, _ := h["stream"].(string)
		switch {
		case first == "":
			first = stream
		case stream != first && strings.Contains(id, "/"+stream+":"):
			pairs = append(pairs, id, strings.Replace(id, "/"+stream+":", "/"+first+":", 1))
		}
	}
	if len(pairs) == 0 {
		return
	}
	rep := strings.NewReplacer(pairs...)
	r.setText(rep.Replace(r.text()))
	var sc any
	_ = decodeJSON([]byte(rep.Replace(string(mustJSON(r.StructuredContent)))), &sc)
	r.StructuredContent = sc
}

var (
	firstEvidenceLineRe = regexp.MustCompile(`(?m)^(1\. result=\d+ )field_path=\S+(.*? id=(\S+) .*?read=read_record_field)`)
	topSnippetRe        = regexp.MustCompile(`(?m)^(\d+\. id=\S+ title="(?:[^"\\]|\\.)*") snippet="(?:[^"\\]|\\.)*"`)
)

// relabelFirstEvidenceField echoes the query in search's header, names the
// first evidence line's field subject and prints its read on subject, and
// shows the top results without snippets, in text only: the evidence line
// is then the one block of the text that shows the preview.
func relabelFirstEvidenceField(req *mcp.CallToolRequest, r *result) {
	var in struct {
		Q string `json:"q"`
	}
	if r.IsError || json.Unmarshal(req.Params.Arguments, &in) != nil || !firstEvidenceLineRe.MatchString(r.text()) {
		return
	}
	text := firstEvidenceLineRe.ReplaceAllString(r.text(), `${1}field_path=subject${2} {"field_path":"subject","id":"${3}"}`)
	r.setText("search " + strconv.Quote(in.Q) + ":\n" + topSnippetRe.ReplaceAllString(text, "$1"))
}

var topTitleLabelRe = regexp.MustCompile(`(?m)^(\d+)\. id=(\S+) title="([^"/]+) / `)

// firstTitleTakesSecondLabel gives the first top result's title the
// second's connection label, where they differ.
func firstTitleTakesSecondLabel(text string) string {
	m := topTitleLabelRe.FindAllStringSubmatchIndex(text, 2)
	if len(m) < 2 {
		return text
	}
	first, second := text[m[0][6]:m[0][7]], text[m[1][6]:m[1][7]]
	if first == second {
		return text
	}
	return text[:m[0][6]] + second + text[m[0][7]:]
}
