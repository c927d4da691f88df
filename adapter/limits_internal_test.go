package adapter

import (
	"net"
	"net/http"
	"testing"
)

type closeRecorder struct {
	net.Conn
	name   string
	closed bool
}

func (c *closeRecorder) Close() error { c.closed = true; return nil }

// At the cap a new connection evicts the one quiet longest; a connection
// busy with a request is never evicted, and when every one is busy the new
// one is closed.
func TestConnCapEvictsTheQuietest(t *testing.T) {
	cc := newConnCap(2)
	conn := func(name string) *closeRecorder { return &closeRecorder{name: name} }
	busy, silent, idle, fresh, late := conn("busy"), conn("silent"), conn("idle"), conn("fresh"), conn("late")
	steps := []struct {
		c     *closeRecorder
		state http.ConnState
	}{
		{busy, http.StateNew}, {busy, http.StateActive},
		{silent, http.StateNew},
		{idle, http.StateNew}, // over the cap: silent (quiet longest) goes
		{idle, http.StateActive}, {idle, http.StateIdle},
		{fresh, http.StateNew}, // idle goes; busy never does
		{fresh, http.StateActive},
		{late, http.StateNew}, // everyone else is busy: late itself goes
	}
	for _, s := range steps {
		cc.track(s.c, s.state)
	}
	for _, c := range []*closeRecorder{busy, silent, idle, fresh, late} {
		want := c == silent || c == idle || c == late
		if c.closed != want {
			t.Errorf("%s: closed=%v, want %v", c.name, c.closed, want)
		}
	}
	cc.track(silent, http.StateClosed) // an evicted connection's close is not counted twice
	cc.track(busy, http.StateClosed)
	if cc.open != 1 {
		t.Errorf("%d connections counted open, want 1 (fresh)", cc.open)
	}
}
