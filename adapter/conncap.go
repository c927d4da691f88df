package adapter

import (
	"container/list"
	"context"
	"net"
	"net/http"
	"net/netip"
	"sync"
)

// connCap caps open connections, in all and per client address. A plain
// limit would stop accepting, so a flood would lock everyone out: instead,
// past a cap a new connection evicts another, in this order:
//
//  1. the one quiet longest: connected and silent, or idle between requests;
//  2. else the one busy longest with a request the adapter has not taken on:
//     its headers are in but its body is still arriving, or it is an
//     unauthenticated page whose answer the client is not reading
//     (pipelining without reading). Over the total cap, it is taken from the
//     client holding the most connections;
//  3. else the new connection itself.
//
// A connection serving an authenticated /mcp call whose body has arrived
// (protect) is never evicted: the write timeout bounds it. Over its
// client's cap, a connection evicts only that client's own, so one address
// cannot push others out by opening connections faster.
type connCap struct {
	max, perClient int
	mu             sync.Mutex
	open           int
	seq            uint64    // orders the lists' entries across clients
	quiet, busy    list.List // *connEntry, oldest first
	conns          map[net.Conn]*connEntry
	clients        map[string]*clientConns
}

type connEntry struct {
	conn   net.Conn
	client *clientConns
	busy   bool          // in busy lists, not quiet ones; neither when protected
	since  uint64        // connCap.seq when it was listed
	at     *list.Element // in connCap.quiet or .busy
	atOwn  *list.Element // in clientConns.quiet or .busy
}

type clientConns struct {
	key         string
	open        int
	quiet, busy list.List // *connEntry, oldest first
}

func newConnCap(max, perClient int) *connCap {
	return &connCap{max: max, perClient: min(max, perClient), conns: map[net.Conn]*connEntry{}, clients: map[string]*clientConns{}}
}

// clientKey is the address a connection comes from: the IPv4 address, or
// the IPv6 /64 (one subscriber's usual allocation).
func clientKey(addr net.Addr) string {
	ap, err := netip.ParseAddrPort(addr.String())
	if err != nil {
		return addr.String()
	}
	ip := ap.Addr().Unmap()
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}

// unlist takes e out of whichever lists hold it.
func (c *connCap) unlist(e *connEntry) {
	if e.at == nil {
		return
	}
	if e.busy {
		c.busy.Remove(e.at)
		e.client.busy.Remove(e.atOwn)
	} else {
		c.quiet.Remove(e.at)
		e.client.quiet.Remove(e.atOwn)
	}
	e.at, e.atOwn = nil, nil
}

func (c *connCap) list(e *connEntry, busy bool) {
	c.seq++
	e.busy, e.since = busy, c.seq
	if busy {
		e.at, e.atOwn = c.busy.PushBack(e), e.client.busy.PushBack(e)
	} else {
		e.at, e.atOwn = c.quiet.PushBack(e), e.client.quiet.PushBack(e)
	}
}

// drop forgets e: its StateClosed then finds nothing to count.
func (c *connCap) drop(e *connEntry) {
	c.unlist(e)
	delete(c.conns, e.conn)
	c.open--
	if e.client.open--; e.client.open == 0 {
		delete(c.clients, e.client.key)
	}
}

// victim picks the connection to evict for newcomer, among one client's
// connections or (cl nil) all of them.
func (c *connCap) victim(newcomer *connEntry, cl *clientConns) *connEntry {
	quiet, busy := &c.quiet, &c.busy
	if cl != nil {
		quiet, busy = &cl.quiet, &cl.busy
	}
	if f := quiet.Front(); f != nil && f.Value.(*connEntry) != newcomer {
		return f.Value.(*connEntry)
	}
	if cl == nil { // the heaviest client's oldest; ties go to the oldest
		for _, other := range c.clients {
			if f := other.busy.Front(); f != nil && (cl == nil || other.open > cl.open ||
				other.open == cl.open && f.Value.(*connEntry).since < cl.busy.Front().Value.(*connEntry).since) {
				cl = other
			}
		}
		if cl == nil {
			return newcomer
		}
		busy = &cl.busy
	}
	if f := busy.Front(); f != nil {
		return f.Value.(*connEntry)
	}
	return newcomer
}

// track is the http.Server's ConnState hook.
func (c *connCap) track(conn net.Conn, state http.ConnState) {
	var victim net.Conn
	c.mu.Lock()
	e := c.conns[conn]
	switch {
	case state == http.StateNew:
		key := clientKey(conn.RemoteAddr())
		cl := c.clients[key]
		if cl == nil {
			cl = &clientConns{key: key}
			c.clients[key] = cl
		}
		e = &connEntry{conn: conn, client: cl}
		c.conns[conn] = e
		c.open++
		cl.open++
		c.list(e, false)
		var v *connEntry
		switch {
		case cl.open > c.perClient:
			v = c.victim(e, cl)
		case c.open > c.max:
			v = c.victim(e, nil)
		}
		if v != nil {
			c.drop(v)
			victim = v.conn
		}
	case e == nil: // evicted already
	case state == http.StateActive:
		c.unlist(e)
		c.list(e, true)
	case state == http.StateIdle:
		c.unlist(e)
		c.list(e, false)
	case state == http.StateClosed, state == http.StateHijacked:
		c.drop(e)
	}
	c.mu.Unlock()
	if victim != nil {
		_ = victim.Close()
	}
}

// protect keeps conn from eviction until its request ends: it now serves
// an authenticated call whose body has arrived.
func (c *connCap) protect(conn net.Conn) {
	c.mu.Lock()
	if e := c.conns[conn]; e != nil && e.busy {
		c.unlist(e)
	}
	c.mu.Unlock()
}

type protectKey struct{}

// connContext is the http.Server's ConnContext hook: it lets the handler
// protect the request's connection.
func (c *connCap) connContext(ctx context.Context, conn net.Conn) context.Context {
	return context.WithValue(ctx, protectKey{}, func() { c.protect(conn) })
}

// protectConn marks the request's connection as serving an authenticated
// call, where HTTPServer's cap tracks it.
func protectConn(r *http.Request) {
	if f, ok := r.Context().Value(protectKey{}).(func()); ok {
		f()
	}
}
