package conformance

import (
	"context"
	"sync"
	"time"
)

// slowStart is a start-up past which a command's forks start one at a
// time: on two cores, four forks of a command that takes seconds of CPU to
// start would each miss a bound they meet alone.
const slowStart = 700 * time.Millisecond

// A startClock is shared by a stdio target and its forks: the longest
// start-up measured, which scales the bounds of the forks, and the gate
// that serialises the start of a slow command's forks.
type startClock struct {
	mu      sync.Mutex
	longest time.Duration
	gate    sync.Mutex
}

// took records one start-up: from starting the command to the end of
// tools/list.
func (c *startClock) took(d time.Duration) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.longest = max(c.longest, d)
	c.mu.Unlock()
}

func (c *startClock) measured() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.longest
}

// fork starts the command again for spec, with its handshake and call
// bounds scaled to the start-up measured (never below what was asked),
// one at a time when the command is slow to start.
func (c *startClock) fork(ctx context.Context, spec TargetSpec) (*Target, error) {
	took := c.measured()
	spec.ConnectTimeout = scaledBound(spec.ConnectTimeout, took)
	if took > slowStart {
		c.gate.Lock()
		defer c.gate.Unlock()
	}
	return open(ctx, spec, (*Target).openStdio)
}

// scaledBound is a bound at least base, and at least four start-ups and
// five seconds: a command's own pace, not a fixed number, decides when it
// is too slow.
func scaledBound(base, startup time.Duration) time.Duration {
	return max(base, 4*startup+5*time.Second)
}
