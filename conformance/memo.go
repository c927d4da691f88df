package conformance

import (
	"slices"
	"strings"
	"sync"
)

// A memo holds values that checks discover about one target ([Discover]).
// Discovery is
// deterministic for a target, so the first check to need a value computes
// it and the rest share it, instead of each repeating the same RS traffic.
type memo struct {
	mu      sync.Mutex
	entries map[string]*memoEntry
}

type memoEntry struct {
	once   sync.Once
	val    any
	failed any       // the panic of a failed discovery, replayed to every caller
	uses   []DataUse // the discoveries and forks computing it made, replayed too
}

// Discover returns the target's value for key, computing it once with f:
// the schema index, a fan-in search term, a sample of records. A discovery
// that fails or skips fails or skips every check that needs it, with the
// same message. Keys are the checks' own; a fork has its own memo.
func Discover[V any](t *T, key string, f func() V) V {
	m := &t.Target.memo
	m.mu.Lock()
	if m.entries == nil {
		m.entries = map[string]*memoEntry{}
	}
	e := m.entries[key]
	if e == nil {
		e = &memoEntry{}
		m.entries[key] = e
	}
	m.mu.Unlock()
	run := t.run
	run.noteUse(DataUse{Discovery: shownKey(key), At: callerOutsideFramework()})
	computed := false
	e.once.Do(func() {
		computed = true
		before := run.useCount()
		defer func() {
			e.uses = run.usesSince(before)
			if p := recover(); p != nil {
				e.failed = p
			}
		}()
		e.val = f()
	})
	if !computed {
		for _, u := range e.uses {
			run.noteUse(u)
		}
	}
	if e.failed != nil {
		panic(e.failed)
	}
	return e.val.(V)
}

// A callMemo holds what probes read from one answer.
type callMemo struct {
	mu sync.Mutex
	m  map[string]any
}

// DiscoverCall is what f reads from the answer c, read once per answer
// and key: readers that follow handles or scan the fixture cost calls
// and time, and several judgements of one check ask the same.
func DiscoverCall[V any](c *Call, key string, f func() V) V {
	if c.memo == nil {
		return f()
	}
	c.memo.mu.Lock()
	if v, ok := c.memo.m[key]; ok {
		c.memo.mu.Unlock()
		return v.(V)
	}
	c.memo.mu.Unlock()
	v := f()
	c.memo.mu.Lock()
	if c.memo.m == nil {
		c.memo.m = map[string]any{}
	}
	c.memo.m[key] = v
	c.memo.mu.Unlock()
	return v
}

// shownKey is how the clause map names a discovery: a key that names one
// thing the target showed ("follow:" and the handle, which differs run to
// run) is named by its kind.
func shownKey(key string) string {
	if kind, _, ok := strings.Cut(key, ":"); ok && slices.Contains(perHandleKinds, kind) {
		return kind + " (a handle the target showed)"
	}
	return key
}

// perHandleKinds are the discovery kinds keyed by a handle.
var perHandleKinds = []string{"follow"}
