package adapter

import (
	"html/template"
	"net/http"
	"strings"

	json "github.com/segmentio/encoding/json"
)

// The hosted setup surface (seeds 001, 003): one recommended path, the MCP
// URL first, then copy-paste commands per client; no profiles, toolsets or
// owner credentials anywhere.

// serveMCPMetadata is the protected-resource metadata of the MCP endpoint
// itself: one resource, client tokens only, one MCP endpoint.
func (a *Adapter) serveMCPMetadata(w http.ResponseWriter, r *http.Request) {
	origin := a.origin(r)
	doc := map[string]any{
		"resource":                   origin + MCPPath,
		"resource_name":              "PDPP Hosted MCP Resource",
		"authorization_servers":      []string{a.rs.BaseURL()},
		"bearer_methods_supported":   []string{"header"},
		"pdpp_core_query_base":       a.rs.BaseURL() + "/v1",
		"pdpp_token_kinds_supported": []string{"client"},
		"pdpp_agent_discovery": map[string]any{"advisory": true, "mcp": map[string]any{"endpoint": origin + MCPPath, "transport": "streamable_http",
			"no_owner_token": true, "setup_intent": "grant_scoped_read", "tool_surface": "profile_free_normal_read", "setup_url": origin + SetupPath}},
	}
	writeJSONDoc(w, doc)
}

// serveRootMetadata is the origin's root document: the core query base
// stays the RS's /v1, with a hint to the MCP endpoint.
func (a *Adapter) serveRootMetadata(w http.ResponseWriter, r *http.Request) {
	origin := a.origin(r)
	writeJSONDoc(w, map[string]any{
		"resource":                 origin,
		"resource_name":            "PDPP read access",
		"authorization_servers":    []string{a.rs.BaseURL()},
		"bearer_methods_supported": []string{"header"},
		"pdpp_core_query_base":     a.rs.BaseURL() + "/v1",
		"pdpp_agent_discovery":     map[string]any{"advisory": true, "mcp": map[string]any{"endpoint": origin + MCPPath, "metadata": origin + MCPMetadataPath}},
	})
}

func writeJSONDoc(w http.ResponseWriter, doc any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(doc)
}

// setupView is what the setup page and /llms.txt show.
type setupView struct {
	MCPURL, Claude, Codex string
}

func (a *Adapter) setupView(r *http.Request) setupView {
	u := a.origin(r) + MCPPath
	return setupView{MCPURL: u, Claude: "claude mcp add --transport http pdpp " + u, Codex: "codex mcp add pdpp --url " + u}
}

var setupPage = template.Must(template.New("connect").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Connect an AI app</title>
<link rel="icon" href="/icon.svg" type="image/svg+xml">
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;color:#1b1b1f}
code,pre{font:14px/1.4 ui-monospace,monospace;background:#f3f3f6;border-radius:6px}
pre{padding:.75rem;overflow-x:auto}code{padding:.1rem .3rem}
.row{display:flex;gap:.5rem;align-items:center;flex-wrap:wrap}
button{font:inherit;padding:.25rem .75rem;border-radius:6px;border:1px solid #888;background:#fff;cursor:pointer}
h2{margin-top:2rem;font-size:1.1rem}
</style>
</head>
<body>
<main>
<h1>Connect an AI app</h1>
<p>This is your MCP server URL. Add it to your AI app to give it read access to the data you granted.</p>
<div class="row"><code id="mcp-url">{{.MCPURL}}</code><button type="button" data-copy="mcp-url">Copy</button></div>
<p>The app asks you to approve access the first time it connects.</p>
<h2>Claude Code</h2>
<div class="row"><pre><code id="claude">{{.Claude}}</code></pre><button type="button" data-copy="claude">Copy</button></div>
<h2>Codex</h2>
<div class="row"><pre><code id="codex">{{.Codex}}</code></pre><button type="button" data-copy="codex">Copy</button></div>
<h2>ChatGPT, Claude.ai and other remote MCP clients</h2>
<p>Add a custom connector and paste the MCP server URL above.</p>
<p>Agents that read instructions can start from <a href="/llms.txt">/llms.txt</a>.</p>
<p role="status" id="copy-status" aria-live="polite"></p>
</main>
<script>
for (const b of document.querySelectorAll("button[data-copy]")) {
  b.addEventListener("click", async () => {
    const text = document.getElementById(b.dataset.copy).textContent;
    const status = document.getElementById("copy-status");
    try { await navigator.clipboard.writeText(text); status.textContent = "Copied: " + text; }
    catch (e) { status.textContent = "Select and copy: " + text; }
  });
}
</script>
</body>
</html>
`))

func (a *Adapter) serveSetup(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'unsafe-inline'; script-src 'unsafe-inline'")
	_ = setupPage.Execute(w, a.setupView(r))
}

func (a *Adapter) serveLLMs(w http.ResponseWriter, r *http.Request) {
	v := a.setupView(r)
	var b strings.Builder
	b.WriteString("# PDPP MCP\n\n")
	b.WriteString("Grant-scoped, read-only access to personal data over MCP. One endpoint, one set of read tools.\n\n")
	b.WriteString("MCP server URL: " + v.MCPURL + "\n\n")
	b.WriteString("Claude Code: " + v.Claude + "\n")
	b.WriteString("Codex: " + v.Codex + "\n")
	b.WriteString("ChatGPT and other remote MCP clients: add a custom connector with the URL above.\n\n")
	b.WriteString("Tools: schema, query_records, aggregate, search, fetch, read_record_field. Start with schema.\n")
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte(b.String()))
}

const iconSVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#2f4bb5"/><path d="M10 8h7a6 6 0 0 1 0 12h-3v4h-4z M14 12v4h3a2 2 0 0 0 0-4z" fill="#fff"/></svg>`

func serveIcon(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Cache-Control", "public, max-age=86400")
	_, _ = w.Write([]byte(iconSVG))
}
