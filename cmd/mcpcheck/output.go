package main

import (
	"bytes"
	"fmt"
	"io"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/termsafe"
)

// A safeOutput is what a subcommand prints to. It may quote the target, so
// it is held until the command ends: then every token mcpcheck was lent
// (the redactor learns them as targets open) is redacted, in any form,
// control and invisible characters are escaped and workflow commands
// neutralised before the terminal or a CI log sees them. mcpcheck's own
// workflow commands go through writeCommand.
type safeOutput struct {
	buf  bytes.Buffer
	cmds []heldCommand
	dst  io.Writer
	red  *conformance.Redactor
}

// A heldCommand is one of mcpcheck's own workflow commands, written after
// the first at bytes of buf.
type heldCommand struct {
	at   int
	line string
}

func (o *safeOutput) Write(p []byte) (int, error) { return o.buf.Write(p) }

// writeCommand holds line, a workflow command of mcpcheck's own
// ("::error …::message"): it is written as a command, its message escaped.
func (o *safeOutput) writeCommand(line string) {
	o.cmds = append(o.cmds, heldCommand{at: o.buf.Len(), line: line})
}

// flush writes what was held, redacted and escaped.
func (o *safeOutput) flush() error {
	w := termsafe.NewWriter(o.dst)
	held, last := o.buf.Bytes(), 0
	var err error
	keep := func(e error) {
		if err == nil {
			err = e
		}
	}
	for _, c := range o.cmds {
		_, werr := w.Write(o.red.Bytes(held[last:c.at]))
		keep(werr)
		keep(w.WriteCommand(o.red.String(c.line)))
		last = c.at
	}
	_, werr := w.Write(o.red.Bytes(held[last:]))
	keep(werr)
	keep(w.Flush())
	o.buf.Reset()
	o.cmds = nil
	return err
}

// commandWriter is an output that takes mcpcheck's own workflow commands.
type commandWriter interface{ writeCommand(line string) }

// writeWorkflowCommand writes line, one of mcpcheck's own workflow
// commands, to w: as a command where w neutralises the target's.
func writeWorkflowCommand(w io.Writer, line string) {
	if cw, ok := w.(commandWriter); ok {
		cw.writeCommand(line)
		return
	}
	fmt.Fprintln(w, line)
}
