package adapter

import (
	"container/list"
	"net"
	"net/http"
	"sync"
	"time"
)

// Defaults of the hosted adapter's limits; docs/SECURITY.md says why each.
const (
	DefaultReadTimeout  = 10 * time.Second
	DefaultWriteTimeout = 90 * time.Second
	DefaultIdleTimeout  = 30 * time.Second
	DefaultMaxConns     = 1024
	// The largest tools/call in the conformance suite is 334 bytes, and
	// every call becomes an RS GET whose URL carries its arguments (RS URL
	// limits are 8-16 KiB), so 64 KiB is generous yet keeps a stalled or
	// oversized body from holding more than that.
	DefaultMaxBodyBytes = 64 << 10
	// Headers arrive before any credential is checked: net/http's 1 MiB
	// let 1,000 connections push RSS to 564 MB. A bearer and the usual
	// headers take a few KiB.
	DefaultMaxHeaderBytes = 32 << 10
)

func orDefault[T int | int64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// HTTPServer is an http.Server for Handler with the hosted limits: every
// request's headers and body must arrive within ReadTimeout, its headers
// fit in MaxHeaderBytes, its answer be written within WriteTimeout, an
// idle keep-alive connection lasts IdleTimeout, and at most MaxConns
// connections are open.
func (a *Adapter) HTTPServer() *http.Server {
	read := orDefault(a.opts.ReadTimeout, DefaultReadTimeout)
	limit := newConnCap(orDefault(a.opts.MaxConns, DefaultMaxConns))
	return &http.Server{
		Handler:           a.Handler(),
		ReadHeaderTimeout: read,
		ReadTimeout:       read,
		WriteTimeout:      orDefault(a.opts.WriteTimeout, DefaultWriteTimeout),
		IdleTimeout:       orDefault(a.opts.IdleTimeout, DefaultIdleTimeout),
		MaxHeaderBytes:    orDefault(a.opts.MaxHeaderBytes, DefaultMaxHeaderBytes),
		ConnState:         limit.track,
	}
}

// connCap caps open connections. A plain limit would stop accepting, so a
// flood of silent connections would lock everyone out: instead, at the cap
// a new connection evicts the one that has been quiet (idle between
// requests, or connected and silent) the longest. Connections busy with a
// request are never evicted (the read timeout bounds them); if every one is
// busy, the new connection is closed.
type connCap struct {
	max   int
	mu    sync.Mutex
	open  int
	quiet list.List // net.Conn, longest quiet first
	conns map[net.Conn]*list.Element
}

func newConnCap(max int) *connCap {
	return &connCap{max: max, conns: map[net.Conn]*list.Element{}}
}

// track is the http.Server's ConnState hook.
func (c *connCap) track(conn net.Conn, state http.ConnState) {
	var victim net.Conn
	c.mu.Lock()
	e, known := c.conns[conn]
	if e != nil {
		c.quiet.Remove(e)
		c.conns[conn] = nil
	}
	switch state {
	case http.StateNew:
		c.open++
		c.conns[conn] = c.quiet.PushBack(conn)
		if c.open > c.max {
			front := c.quiet.Front()
			victim = c.quiet.Remove(front).(net.Conn)
			delete(c.conns, victim) // its StateClosed finds nothing to count
			c.open--
		}
	case http.StateIdle:
		if known {
			c.conns[conn] = c.quiet.PushBack(conn)
		}
	case http.StateClosed, http.StateHijacked:
		if known {
			delete(c.conns, conn)
			c.open--
		}
	}
	c.mu.Unlock()
	if victim != nil {
		_ = victim.Close()
	}
}
