package conformance

import "runtime/debug"

// version is set with -ldflags "-X github.com/pdpp-connect/mcpcheck/conformance.version=…".
var version = ""

// Version is the build version, falling back to the module version.
func Version() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
