package adapter

import (
	"sync"
	"time"
)

// DefaultRefusalCacheTTL is how long a refused bearer is refused without
// asking the RS again: long enough to turn a flood of one invented bearer
// into a trickle of RS checks, short enough that nobody waits on it.
const DefaultRefusalCacheTTL = 5 * time.Second

// refusalCacheSize bounds the refusal cache; past it, expired entries go,
// then arbitrary ones.
const refusalCacheSize = 4096

func (a *Adapter) refusalTTL() time.Duration {
	if a.opts.RefusalCacheTTL < 0 {
		return 0 // off
	}
	return orDefault(a.opts.RefusalCacheTTL, DefaultRefusalCacheTTL)
}

// refusalCache remembers the RS's refusals by sha256 of the bearer (never
// the bearer itself).
type refusalCache struct {
	mu sync.Mutex
	m  map[[32]byte]bearerVerdict
}

func (c *refusalCache) get(key [32]byte) (bearerVerdict, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[key]
	if ok && time.Now().After(v.expires) {
		delete(c.m, key)
		ok = false
	}
	return v, ok
}

func (c *refusalCache) put(key [32]byte, v bearerVerdict, ttl time.Duration) {
	if ttl <= 0 {
		return
	}
	now := time.Now()
	v.expires = now.Add(ttl)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[[32]byte]bearerVerdict{}
	}
	if len(c.m) >= refusalCacheSize {
		for k, old := range c.m {
			if now.After(old.expires) {
				delete(c.m, k)
			}
		}
		for k := range c.m {
			if len(c.m) < refusalCacheSize {
				break
			}
			delete(c.m, k)
		}
	}
	c.m[key] = v
}
