package conformance

import (
	"net/http"
	"net/url"

	"github.com/pdpp-connect/mcpcheck/conformance/internal/sameorigin"
)

// HostedProbeClient returns a client for probing a [HostedEndpoint]
// below the MCP SDK: it follows redirects only within the origin a probe
// went to, so a bearer never leaves it and a hostile target cannot make
// mcpcheck read another URL and quote it (a [*RedirectError]). Checks
// reach the origin policy through it, never through conformance/internal.
func HostedProbeClient() *http.Client {
	return &http.Client{CheckRedirect: sameorigin.CheckRedirect}
}

// A RedirectError is a redirect to another origin that mcpcheck refused
// to follow.
type RedirectError = sameorigin.RedirectError

// SameOrigin reports whether two URLs share scheme, host and port.
func SameOrigin(a, b *url.URL) bool { return sameorigin.Of(a) == sameorigin.Of(b) }
