package conformance

import (
	"testing"
	"time"
)

// Bounds follow the target's pace: never below what was asked, and at
// least four start-ups and five seconds once a slow start is measured.
func TestScaledBound(t *testing.T) {
	for _, c := range []struct{ base, startup, want time.Duration }{
		{15 * time.Second, 0, 15 * time.Second},
		{15 * time.Second, time.Second, 15 * time.Second},
		{15 * time.Second, 3 * time.Second, 17 * time.Second},
		{5 * time.Second, 2 * time.Second, 13 * time.Second},
	} {
		if got := scaledBound(c.base, c.startup); got != c.want {
			t.Errorf("scaledBound(%s, %s) = %s, want %s", c.base, c.startup, got, c.want)
		}
	}
	var c startClock
	c.took(time.Second)
	c.took(300 * time.Millisecond)
	if c.measured() != time.Second {
		t.Errorf("the clock keeps the longest start-up, got %s", c.measured())
	}
}
