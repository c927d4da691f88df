package matrix

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestMain collects garbage less often than Go's default: the matrix opens
// hundreds of short-lived adapters and fixture RSs, whose garbage cost a
// fifth of the package's CPU at GOGC=100 (BENCHMARKS.md, "Test-suite
// time"); the heap stays a few hundred MB. A GOGC the caller sets wins.
func TestMain(m *testing.M) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(m.Run())
}
