package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/pdpp-connect/mcpcheck/conformance"
)

// signalGrace is how long a run may take to stop after SIGINT or SIGTERM:
// checks end as interrupted and the report of what ran is written. A phase
// that does not watch the context could hold on; past the grace, or at a
// second signal, mcpcheck exits without its report.
const signalGrace = 10 * time.Second

// runWithSignals runs mcpcheck; SIGINT and SIGTERM cancel the run, and
// watchSignals makes sure the process then ends.
func runWithSignals(args []string, stdout, stderr io.Writer, getenv func(string) string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	done := watchSignals(ctx, stderr, signalGrace, os.Exit)
	defer done()
	return execute(ctx, args, stdout, stderr, getenv)
}

// watchSignals, once ctx is cancelled by a signal, calls exit when the run
// has not returned within grace or a second signal arrives. The returned
// func says the run returned.
func watchSignals(ctx context.Context, stderr io.Writer, grace time.Duration, exit func(int)) func() {
	returned := make(chan struct{})
	again := make(chan os.Signal, 1)
	go func() {
		select {
		case <-returned:
			return
		case <-ctx.Done():
		}
		signal.Notify(again, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(again)
		why := ""
		select {
		case <-returned:
			return
		case s := <-again:
			why = "a second signal (" + s.String() + ")"
		case <-time.After(grace):
			why = fmt.Sprintf("the run did not stop within %s", grace)
		}
		fmt.Fprintf(stderr, "mcpcheck: interrupted: %s; exiting without a report\n", why)
		exit(conformance.ExitFail)
	}()
	return func() { close(returned) }
}
