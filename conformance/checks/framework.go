package checks

import "github.com/pdpp-connect/mcpcheck/conformance"

// The framework names every check uses, so that a check reads as a
// scenario, not as a list of package qualifiers. Everything else a check
// needs from the framework it names as conformance.X.
type (
	T          = conformance.T
	Call       = conformance.Call
	Check      = conformance.Check
	Target     = conformance.Target
	Capability = conformance.Capability
)

// Modes and capabilities, as the checks declare them.
const (
	ModeBB   = conformance.ModeBB
	ModeBBD  = conformance.ModeBBD
	ModeCTRL = conformance.ModeCTRL
	ModeHOST = conformance.ModeHOST
	ModePROC = conformance.ModePROC

	CapLocalCommand = conformance.CapLocalCommand
	CapControlledRS = conformance.CapControlledRS
	CapFixture      = conformance.CapFixture
	CapCLI          = conformance.CapCLI
	CapHTTP         = conformance.CapHTTP
)

// clipText quotes a long answer in a failure message ([conformance.ClipText]).
var clipText = conformance.ClipText
