package adapter

import (
	"net"
	"net/http"
	"strings"
	"testing"
)

type closeRecorder struct {
	net.Conn
	name   string
	from   net.Addr
	closed bool
}

func (c *closeRecorder) Close() error         { c.closed = true; return nil }
func (c *closeRecorder) RemoteAddr() net.Addr { return c.from }

func fakeConn(name, ip string) *closeRecorder {
	return &closeRecorder{name: name, from: &net.TCPAddr{IP: net.ParseIP(ip), Port: 40000}}
}

type capStep struct {
	c     *closeRecorder
	state http.ConnState // 0 (StateNew) …; -1 protects
}

const protect http.ConnState = -1

func runCap(cc *connCap, steps []capStep) {
	for _, s := range steps {
		if s.state == protect {
			cc.protect(s.c)
			continue
		}
		cc.track(s.c, s.state)
	}
}

func wantClosed(t *testing.T, all []*closeRecorder, closed ...*closeRecorder) {
	t.Helper()
	for _, c := range all {
		want := false
		for _, w := range closed {
			want = want || c == w
		}
		if c.closed != want {
			t.Errorf("%s: closed=%v, want %v", c.name, c.closed, want)
		}
	}
}

// At the cap a new connection evicts the one quiet longest; a protected
// connection (an authenticated call) is never evicted, and when every one
// is protected the new one is closed.
func TestConnCapEvictsTheQuietest(t *testing.T) {
	cc := newConnCap(2, 2)
	busy, silent, idle, fresh, late := fakeConn("busy", "10.0.0.1"), fakeConn("silent", "10.0.0.2"),
		fakeConn("idle", "10.0.0.3"), fakeConn("fresh", "10.0.0.4"), fakeConn("late", "10.0.0.5")
	runCap(cc, []capStep{
		{busy, http.StateNew}, {busy, http.StateActive}, {busy, protect},
		{silent, http.StateNew},
		{idle, http.StateNew}, // over the cap: silent (quiet longest) goes
		{idle, http.StateActive}, {idle, http.StateIdle},
		{fresh, http.StateNew}, // idle goes; busy never does
		{fresh, http.StateActive}, {fresh, protect},
		{late, http.StateNew}, // everyone else is protected: late itself goes
	})
	wantClosed(t, []*closeRecorder{busy, silent, idle, fresh, late}, silent, idle, late)
	cc.track(silent, http.StateClosed) // an evicted connection's close is not counted twice
	cc.track(busy, http.StateClosed)
	if cc.open != 1 || len(cc.clients) != 1 {
		t.Errorf("%d connections from %d clients counted open, want 1 (fresh)", cc.open, len(cc.clients))
	}
}

// A connection whose request is still arriving (Active, not protected)
// is evicted when nothing is quiet, the newcomer aside: a flood of stalled
// bodies or of pipelined pages cannot lock a new client out. Over the
// total cap the victim comes from the client holding the most connections.
func TestConnCapEvictsUnfinishedRequests(t *testing.T) {
	cc := newConnCap(4, 4)
	a1, a2, a3, b1, ping := fakeConn("a1", "10.0.0.1"), fakeConn("a2", "10.0.0.1"), fakeConn("a3", "10.0.0.1"),
		fakeConn("b1", "10.0.0.2"), fakeConn("ping", "10.0.0.9")
	runCap(cc, []capStep{
		{b1, http.StateNew}, {b1, http.StateActive}, // oldest, but its client holds one
		{a1, http.StateNew}, {a1, http.StateActive},
		{a2, http.StateNew}, {a2, http.StateActive},
		{a3, http.StateNew}, {a3, http.StateActive},
		{ping, http.StateNew}, // the heaviest client's oldest goes, not ping
	})
	wantClosed(t, []*closeRecorder{a1, a2, a3, b1, ping}, a1)
	runCap(cc, []capStep{{ping, http.StateActive}, {ping, protect}})
	if e := cc.conns[ping]; e == nil || e.at != nil {
		t.Error("a protected connection is still listed for eviction")
	}
	runCap(cc, []capStep{{ping, http.StateIdle}}) // its call is over: quiet, evictable again
	if e := cc.conns[ping]; e == nil || e.at == nil || e.busy {
		t.Error("a connection idle after its call is not listed as quiet")
	}
}

// Over its client's cap a connection evicts only that client's own, so
// one address opening connections fast cannot push another's out.
func TestConnCapPerClient(t *testing.T) {
	cc := newConnCap(10, 2)
	ping := fakeConn("ping", "127.0.0.1")
	all := []*closeRecorder{ping}
	runCap(cc, []capStep{{ping, http.StateNew}, {ping, http.StateActive}})
	for i := range 50 {
		c := fakeConn("attacker"+string(rune('a'+i%26)), "127.0.0.2")
		all = append(all, c)
		runCap(cc, []capStep{{c, http.StateNew}, {c, http.StateActive}})
	}
	if ping.closed {
		t.Error("a flood from another address evicted the client's connection")
	}
	if n := cc.clients["127.0.0.2"].open; n != 2 {
		t.Errorf("the flooding address holds %d connections, want its cap of 2", n)
	}
	v6a, v6b := fakeConn("v6a", "2001:db8::1"), fakeConn("v6b", "2001:db8::2")
	runCap(cc, []capStep{{v6a, http.StateNew}, {v6b, http.StateNew}})
	if cc.clients["2001:db8::/64"].open != 2 {
		t.Error("two addresses of one IPv6 /64 are not counted as one client")
	}
}

// --max-conns must fit the open-file limit, two descriptors a connection
// (the client's and an RS request's) besides a reserve: an explicit value
// that does not fit is a usage error, the default is lowered to fit.
func TestFitConnsToFileLimit(t *testing.T) {
	for _, tc := range []struct {
		max      int
		explicit bool
		nofile   uint64
		want     int
		warn     string
		err      string
	}{
		{1024, false, 0, 1024, "", ""}, // unknown limit
		{1024, true, 20000, 1024, "", ""},
		{1024, false, 2*1024 + fdReserve, 1024, "", ""},
		{1024, false, 512, 208, "--max-conns lowered from 1024 to 208 to fit the open-file limit (ulimit -n) of 512", ""},
		{1024, true, 512, 0, "", "--max-conns 1024: the open-file limit (ulimit -n) is 512, which fits at most 208 connections"},
		{1024, false, 64, 0, "", "the open-file limit (ulimit -n) is 64, too low to serve"},
	} {
		got, warn, err := fitConnsToFileLimit(tc.max, tc.explicit, tc.nofile)
		if got != tc.want || !strings.HasPrefix(warn, tc.warn) || (tc.warn == "") != (warn == "") ||
			(err == nil) != (tc.err == "") || err != nil && !strings.HasPrefix(err.Error(), tc.err) {
			t.Errorf("fit(%d, explicit=%v, nofile=%d) = %d, %q, %v; want %d, %q, %q", tc.max, tc.explicit, tc.nofile, got, warn, err, tc.want, tc.warn, tc.err)
		}
	}
}
