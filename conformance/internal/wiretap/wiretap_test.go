package wiretap

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

func TestHTTPRecordsJSONAndSSEBodies(t *testing.T) {
	for _, tc := range []struct {
		name, contentType, body string
	}{
		{"json", "application/json", `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`},
		{"sse", "text/event-stream", "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\n" + "data: \"result\":{\"tools\":[]}}\n\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Authorization") != "Bearer tok" {
					w.WriteHeader(401)
					return
				}
				w.Header().Set("Content-Type", tc.contentType)
				_, _ = io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			tap := New()
			c := HTTPClient(tap, nil, srv.URL, http.Header{"Authorization": {"Bearer tok"}})
			resp, err := c.Post(srv.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			if string(got) != tc.body {
				t.Errorf("the SDK would see %q, want the body unchanged", got)
			}
			ex, ok := tap.Last("tools/list")
			if !ok || string(ex.Result) != `{"tools":[]}` {
				t.Fatalf("recorded %+v", ex)
			}
		})
	}
}

func TestHTTPBodyLimit(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, strings.Repeat("x", 2048))
	}))
	defer srv.Close()
	tap := New()
	tap.SetMaxMessage(1024)
	_, err := HTTPClient(tap, nil, srv.URL, nil).Post(srv.URL, "application/json", strings.NewReader(`{}`))
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("err %v, want ErrTooLarge", err)
	}
}

func TestStdioTeesAndGarbage(t *testing.T) {
	tap := New()
	in := StdinWriter(tap, nopCloser{io.Discard})
	_, _ = io.WriteString(in, `{"jsonrpc":"2.0","id":7,"method":"initialize"}`+"\n"+`[{"jsonrpc":"2.0","id":8,"method":"ping"}]`+"\n")
	out := StdoutReader(tap, strings.NewReader("starting up\n"+`{"jsonrpc":"2.0","id":7,"result":{"ok":true}}`+"\n"+`[{"jsonrpc":"2.0","id":8,"result":{}}]`+"\n"))
	all, _ := io.ReadAll(out)
	if !strings.HasPrefix(string(all), "starting up\n") {
		t.Errorf("lines must pass through unchanged, got %q", all)
	}
	if g := tap.Garbage(); len(g) != 1 || g[0] != "starting up" {
		t.Errorf("garbage %q", g)
	}
	if ex, ok := tap.Last("initialize"); !ok || string(ex.Result) != `{"ok":true}` {
		t.Errorf("initialize %+v", ex)
	}
	if _, ok := tap.Last("ping"); !ok {
		t.Error("batched ping not recorded")
	}
}

func TestStdoutLineLimit(t *testing.T) {
	tap := New()
	tap.SetMaxMessage(100)
	_, err := io.ReadAll(StdoutReader(tap, strings.NewReader(strings.Repeat("a", 500)+"\n")))
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("err %v, want ErrTooLarge", err)
	}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

func TestStrayResponsesAreKept(t *testing.T) {
	tap := New()
	tap.Outgoing([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`))
	tap.Incoming([]byte("{\"jsonrpc\":\"2.0\",\n \"id\":\"not-1\",\"result\":{}}"))
	if _, ok := tap.Last("initialize"); ok {
		t.Error("a response with another id completed the exchange")
	}
	if s := tap.Stray(); len(s) != 1 || s[0] != `{"jsonrpc":"2.0","id":"not-1","result":{}}` {
		t.Errorf("stray %q, want the compacted response", s)
	}
}

// endless is a reader of n 'x' bytes that counts what was taken from it.
type endless struct{ n, read int }

func (e *endless) Read(p []byte) (int, error) {
	if e.read >= e.n {
		return 0, io.EOF
	}
	k := min(len(p), e.n-e.read)
	for i := range p[:k] {
		p[i] = 'x'
	}
	e.read += k
	return k, nil
}

func (e *endless) Close() error { return nil }

// A 100 MB message is cut off at the limit: the tap stops reading, rather
// than reading it all and then refusing it.
func TestHugeMessagesAreNotReadWhole(t *testing.T) {
	const limit, huge = 1 << 20, 100 << 20
	tap := New()
	tap.SetMaxMessage(limit)
	src := &endless{n: huge}
	if _, err := io.ReadAll(StdoutReader(tap, src)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("stdio: err %v, want ErrTooLarge", err)
	}
	if src.read > limit+64<<10 {
		t.Errorf("stdio: read %d bytes of a %d-byte line, limit %d", src.read, huge, limit)
	}
	body := &endless{n: huge}
	base := roundTripFunc(func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: body}, nil
	})
	_, err := HTTPClient(tap, base, "http://target.test/mcp", nil).Post("http://target.test/mcp", "application/json", strings.NewReader(`{}`))
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("http: err %v, want ErrTooLarge", err)
	}
	if body.read > limit+1 {
		t.Errorf("http: read %d bytes of a %d-byte body, limit %d", body.read, huge, limit)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// The tap's client adds its header only for the endpoint's origin: a
// redirect there is followed with it, one to another origin is refused
// before anything is sent and remembered as the reason.
func TestHTTPHeaderStaysOnTheEndpointOrigin(t *testing.T) {
	var (
		mu  sync.Mutex
		got []string // path and Authorization of each request, at either server
	)
	record := func(r *http.Request) {
		mu.Lock()
		got = append(got, r.URL.Path+" "+r.Header.Get("Authorization"))
		mu.Unlock()
	}
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { record(r) }))
	defer other.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		record(r)
		switch r.URL.Path {
		case "/moved":
			http.Redirect(w, r, "/mcp", http.StatusPermanentRedirect)
		case "/away":
			http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
		default:
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
		}
	}))
	defer srv.Close()
	tap := New()
	c := HTTPClient(tap, nil, srv.URL+"/moved", http.Header{"Authorization": {"Bearer tok"}})
	body := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	resp, err := c.Post(srv.URL+"/moved", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatalf("same-origin redirect: %v", err)
	}
	resp.Body.Close()
	if tap.RefusedRedirect() != nil {
		t.Errorf("a same-origin redirect was refused: %v", tap.RefusedRedirect())
	}
	if _, err := c.Post(srv.URL+"/away", "application/json", strings.NewReader(body)); err == nil {
		t.Fatal("a redirect to another origin was followed")
	}
	if r := tap.RefusedRedirect(); r == nil || !strings.Contains(r.Error(), "redirected to another origin") {
		t.Errorf("RefusedRedirect() = %v", r)
	}
	want := []string{"/moved Bearer tok", "/mcp Bearer tok", "/away Bearer tok"}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("requests %q, want %q (nothing at the other origin)", got, want)
	}
}

// Only the newest initialize and tools/list are kept: a target that pages
// without end cannot make the tap hold every page.
func TestOnlyTheNewestPinnedExchangeIsKept(t *testing.T) {
	tap := New()
	for i := range 3 {
		id := strings.Repeat("1", i+1)
		tap.Outgoing([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}`))
		tap.Incoming([]byte(`{"jsonrpc":"2.0","id":` + id + `,"result":{"tools":[],"page":` + id + `}}`))
	}
	all := tap.Exchanges()
	if len(all) != 1 || all[0].ID != "111" {
		t.Errorf("kept %d exchanges (%+v), want the newest page only", len(all), all)
	}
}

// A long run keeps the pinned exchanges and the newest calls, bounded.
func TestTapKeepsTheNewestCallsBounded(t *testing.T) {
	tap := New()
	exchange := func(id int, method string) {
		tap.Outgoing([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q}`, id, method)))
		tap.Incoming([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, id)))
	}
	exchange(0, "initialize")
	exchange(1, "tools/list")
	const calls = 3 * MaxExchanges
	for i := range calls {
		exchange(2+i, "tools/call")
		if n := len(tap.done); n > MaxExchanges+MaxExchanges/4 {
			t.Fatalf("%d exchanges kept after %d calls", n, i+1)
		}
	}
	all := tap.Exchanges()
	if all[0].Method != "initialize" || all[1].Method != "tools/list" {
		t.Errorf("pinned exchanges dropped: first two are %s, %s", all[0].Method, all[1].Method)
	}
	if last := all[len(all)-1]; last.ID != fmt.Sprint(calls+1) {
		t.Errorf("newest exchange is id %s, want %d", last.ID, calls+1)
	}
	for i := 3; i < len(all); i++ {
		if all[i].ID <= all[i-1].ID && len(all[i].ID) <= len(all[i-1].ID) {
			t.Fatalf("calls out of order at %d: %s after %s", i, all[i].ID, all[i-1].ID)
		}
	}
}

// A taken exchange is handed over whole once, then kept as a prefix.
func TestTakeHandsOverWholeThenKeepsAPrefix(t *testing.T) {
	tap := New()
	big := strings.Repeat("x", 10*KeptPrefix)
	tap.Outgoing([]byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"m":"marker-7"}}}`))
	tap.Incoming([]byte(`{"jsonrpc":"2.0","id":7,"result":{"text":"` + big + `"}}`))
	ex, ok := tap.Take("marker-7")
	if !ok || ex.Clipped || !strings.Contains(string(ex.Result), big) {
		t.Fatalf("Take: ok=%v clipped=%v, %d result bytes", ok, ex.Clipped, len(ex.Result))
	}
	kept, _ := tap.Find("marker-7")
	if !kept.Clipped || len(kept.Result) != KeptPrefix || len(kept.Response) != KeptPrefix {
		t.Errorf("after Take the tap keeps %d result and %d response bytes (clipped %v), want %d", len(kept.Result), len(kept.Response), kept.Clipped, KeptPrefix)
	}
	if _, ok := tap.Take("marker-7"); ok {
		t.Error("a clipped exchange was taken again as whole")
	}
	if n := tap.Kept(); n > 4*KeptPrefix {
		t.Errorf("the tap holds %d bytes", n)
	}
}

// Untaken answers are held within the byte budget: the oldest are cut to
// their prefixes, then dropped; initialize and tools/list stay whole.
func TestTapHoldsUntakenAnswersWithinItsBudget(t *testing.T) {
	tap := New()
	const budget = 1 << 20
	tap.SetBudget(budget)
	pad := strings.Repeat("p", 100<<10)
	exchange := func(id int, method string) {
		tap.Outgoing([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q}`, id, method)))
		tap.Incoming([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"pad":%q}}`, id, pad)))
	}
	exchange(0, "initialize")
	exchange(1, "tools/list")
	for i := range 200 {
		exchange(2+i, "tools/call")
		if n := tap.Kept(); n > budget {
			t.Fatalf("after %d calls the tap holds %d bytes, over its budget of %d", i+1, n, budget)
		}
	}
	all := tap.Exchanges()
	if all[0].Method != "initialize" || all[0].Clipped || all[1].Method != "tools/list" || all[1].Clipped {
		t.Errorf("the handshake was not kept whole: %s %v, %s %v", all[0].Method, all[0].Clipped, all[1].Method, all[1].Clipped)
	}
	if last := all[len(all)-1]; last.Clipped || last.ID != "201" {
		t.Errorf("the newest answer (id %s, clipped %v) was not kept whole", last.ID, last.Clipped)
	}
	sum := 0
	for _, ex := range all {
		sum += len(ex.Request) + len(ex.Response) + len(ex.Result) + len(ex.Error)
	}
	if sum != tap.Kept() {
		t.Errorf("Kept says %d bytes, the exchanges hold %d", tap.Kept(), sum)
	}
}
