package main

import (
	"bytes"
	"io"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/termsafe"
)

// A safeOutput is what a subcommand prints to. It may quote the target, so
// it is held until the command ends: then every token mcpcheck was lent
// (the redactor learns them as targets open) is redacted, in any form,
// and control characters are escaped before the terminal sees them.
type safeOutput struct {
	buf bytes.Buffer
	dst io.Writer
	red *conformance.Redactor
}

func (o *safeOutput) Write(p []byte) (int, error) { return o.buf.Write(p) }

// flush writes what was held, redacted and escaped.
func (o *safeOutput) flush() error {
	w := termsafe.NewWriter(o.dst)
	_, err := w.Write(o.red.Bytes(o.buf.Bytes()))
	o.buf.Reset()
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	return err
}
