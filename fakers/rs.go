package fakers

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jarcoal/httpmock"
)

// PDPPVersion is the protocol version the RS speaks.
const PDPPVersion = "2026-04-06"

// MockBaseURL is the RS origin for the in-process httpmock transport.
const MockBaseURL = "http://fixture-rs.test"

// RS is the fixture resource server. It is safe for concurrent use.
type RS struct {
	routes []route
	tokens map[string]tokenInfo

	dataMu  sync.RWMutex // guards fx, tokens and the change history: Update and Revoke mutate live
	fx      *Fixture
	version int // the data version; every Update bumps it
	// changeLog records the version at which a record last changed, or its
	// tombstone when it was deleted, for the changes feed.
	changeLog    map[recordKey]change
	changesFloor int      // changes_since tokens older than this are 410
	dataCache    sync.Map // recordKey -> json.RawMessage of unprojected data; cleared by Update
	lowerCache   sync.Map // fieldKey -> lower-cased text, for lexical search; cleared by Update
	sortCache    sync.Map // sortKey -> []Record in cursor order; cleared by Update
	answerCache  sync.Map // token kind and request -> encoded schema or search answer; cleared by Update
	answers      atomic.Int64

	mu  sync.Mutex
	log []Request
	seq int64 // the last logged request's Seq
	// controlToken guards the control plane ("" keeps it off); baseline is
	// the data it restores.
	controlToken string
	baseline     []byte
	logMax       int                                  // 0: DefaultLogLimit; <0: log nothing
	exempt       func(path string, q url.Values) bool // see Exempt
	faults       []*faultRule
}

// New returns an RS serving the fixture.
func New(f *Fixture) *RS {
	tok := func(role string) string { return derivedToken(f.Name, role) }
	rs := &RS{fx: f, version: 1, changeLog: map[recordKey]change{}, tokens: map[string]tokenInfo{
		tok("client"):           {kind: KindClient},
		tok("owner"):            {kind: KindOwner},
		tok("client revoked"):   {kind: KindClient, state: stateRevoked},
		tok("client expired"):   {kind: KindClient, state: stateExpired},
		tok("client malformed"): {kind: KindClient, state: stateMalformed},
		tok("client legacy"):    {kind: KindClient, state: stateLegacy},
		tok("mcp package"):      {kind: KindPackage},
		tok("client foreign"):   {kind: KindClient, state: stateForeign},
		tok("control plane"):    {kind: KindControlPlane},
	}}
	for _, c := range f.Connectors {
		rs.tokens[tok("client of "+c.Key)] = tokenInfo{kind: KindClient, connector: c.Key}
	}
	rs.routes = []route{
		{pattern: `^/\.well-known/oauth-protected-resource$`, public: true, handle: rs.protectedResource},
		{pattern: `^/v1/schema$`, handle: rs.schema},
		{pattern: `^/v1/streams$`, handle: rs.streams},
		{pattern: `^/v1/streams/([^/]+)$`, streamed: true, handle: rs.streamDetail},
		{pattern: `^/v1/streams/([^/]+)/records$`, streamed: true, handle: rs.records},
		{pattern: `^/v1/streams/([^/]+)/records/([^/]+)$`, streamed: true, handle: rs.recordDetail},
		{pattern: `^/v1/streams/([^/]+)/records/([^/]+)/field-window$`, streamed: true, handle: rs.fieldWindow},
		{pattern: `^/v1/streams/([^/]+)/aggregate$`, streamed: true, handle: rs.aggregate},
		{pattern: `^/v1/search$`, handle: rs.search},
		{pattern: `^/v1/search/semantic$`, handle: rs.semanticSearch, mounted: Fixture.semantic},
		{pattern: `^/v1/search/hybrid$`, handle: rs.hybridSearch, mounted: Fixture.semantic},
		{pattern: `^/v1/blobs/([^/]+)$`, raw: true, handle: rs.blob},
	}
	for i := range rs.routes {
		rs.routes[i].re = regexp.MustCompile(rs.routes[i].pattern)
	}
	return rs
}

// Fixture returns the data set being served. Use [RS.Update] to change it.
func (rs *RS) Fixture() *Fixture {
	rs.dataMu.RLock()
	defer rs.dataMu.RUnlock()
	return rs.fx
}

// Update changes the served data live, between two calls, with no restart.
// Records that fn adds or changes, and those it deletes, show up in the
// changes feed of the next version.
func (rs *RS) Update(fn func(*Fixture)) {
	rs.dataMu.Lock()
	defer rs.dataMu.Unlock()
	before := fingerprints(rs.fx)
	fn(rs.fx)
	rs.version++
	rs.dataCache.Clear()
	rs.lowerCache.Clear()
	rs.sortCache.Clear()
	rs.answerCache.Clear()
	after := fingerprints(rs.fx)
	for k, fp := range after {
		if b, ok := before[k]; !ok || b.sum != fp.sum {
			rs.changeLog[k] = change{version: rs.version}
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			rs.changeLog[k] = change{version: rs.version, tombstone: map[string]any{"object": "record", "id": k.id, "stream": k.stream,
				"deleted": true, "deleted_at": fixtureClock(rs.version), "emitted_at": fixtureClock(rs.version),
				"connection_id": k.conn, "connector_instance_id": k.conn}}
		}
	}
}

// ExpireChanges drops the change history: changes_since tokens issued
// before now answer 410 cursor_expired.
func (rs *RS) ExpireChanges() {
	rs.dataMu.Lock()
	defer rs.dataMu.Unlock()
	rs.changesFloor = rs.version
}

// Transport serves every request in-process through httpmock, with no socket.
// It never activates httpmock globally, which would replace
// http.DefaultTransport for the whole process.
func (rs *RS) Transport() http.RoundTripper {
	mt := httpmock.NewMockTransport()
	mt.RegisterNoResponder(func(req *http.Request) (resp *http.Response, err error) {
		defer func() {
			if p := recover(); p != nil {
				resp, err = nil, errors.New("connection reset by the fixture RS")
			}
		}()
		rec := httptest.NewRecorder()
		rs.ServeHTTP(rec, req)
		return rec.Result(), nil
	})
	return mt
}

// Start serves on a real listener (e.g. "127.0.0.1:0") and returns its URL.
func (rs *RS) Start(addr string) (string, func(context.Context) error, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: rs, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), srv.Shutdown, nil
}
