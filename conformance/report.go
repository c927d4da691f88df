package conformance

import (
	"bytes"
	"encoding/json"
	"io"
	"runtime/debug"

	"github.com/pdpp-connect/mcpcheck/conformance/termsafe"
)

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

// WriteJSON writes the machine report (schema mcpcheck.report/v2). Its
// strings hold no raw C1, bidi or zero-width character and no workflow
// command: termsafe.JSON escapes them, and a decoder reads the same text.
func (r *Report) WriteJSON(w io.Writer) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return err
	}
	_, err := w.Write(termsafe.JSON(b.Bytes()))
	return err
}
