package conformance

import (
	"net/http"

	"github.com/pdpp-connect/mcpcheck/conformance/internal/sameorigin"
)

// HostedProbeClient returns a client for probing a [HostedEndpoint]
// below the MCP SDK: it follows an anonymous probe's redirects anywhere,
// but refuses, before sending anything, to carry an Authorization header
// to another origin (a [*RedirectError]). Checks reach the origin policy
// through it, never through conformance/internal.
func HostedProbeClient() *http.Client {
	return &http.Client{CheckRedirect: sameorigin.CheckCredentialedRedirect}
}

// A RedirectError is a redirect to another origin that mcpcheck refused
// to follow with a bearer.
type RedirectError = sameorigin.RedirectError
