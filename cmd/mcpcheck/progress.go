package main

import (
	"fmt"
	"io"
	"os"
	"sync"
)

// terminal is where progress goes: the real stderr when it is a terminal
// and the run is not in CI, else nil (quiet). Progress is mcpcheck's own
// text (counts and check names), so it needs no redaction or escaping and
// is not held back with what a target may have written.
var terminal io.Writer

// setTerminal decides, once per process, whether progress is shown.
func setTerminal(stderr io.Writer, getenv func(string) string) {
	terminal = nil
	f, ok := stderr.(*os.File)
	if !ok || getenv("CI") != "" || getenv("TERM") == "dumb" {
		return
	}
	if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		terminal = f
	}
}

// progressTo returns a progress callback that keeps one status line on
// the terminal, or nil when there is none.
func progressTo(_ io.Writer, _ func(string) string, what string) func(done, total int, name string) {
	t := terminal
	if t == nil {
		return nil
	}
	var mu sync.Mutex
	return func(done, total int, name string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(t, "\r\x1b[K%s: %d/%d %s", what, done, total, name)
		if done == total {
			fmt.Fprint(t, "\r\x1b[K")
		}
	}
}
