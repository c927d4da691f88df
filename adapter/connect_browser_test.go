package adapter_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/pdpp-connect/mcpcheck/adapter"
	"github.com/pdpp-connect/mcpcheck/adapter/adaptertest"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// chromiumPath finds Debian's chromium. Without it the browser test skips,
// unless MCPCHECK_REQUIRE_CHROMIUM is set, as .ci/run sets it.
func chromiumPath(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("MCPCHECK_REQUIRE_CHROMIUM") != "" {
		t.Fatal("chromium is not installed (apt-get install chromium), and MCPCHECK_REQUIRE_CHROMIUM is set")
	}
	t.Skip("chromium is not installed; .ci/run installs it (apt-get install chromium)")
	return ""
}

// The setup page, rendered by a real browser: the MCP URL first, then the
// client commands, nothing about profiles or owner credentials, and copy
// buttons that work.
func TestSetupPageInChromium(t *testing.T) {
	bin := chromiumPath(t)
	fx, err := fakers.LoadFixture(fakers.DefaultFixture)
	if err != nil {
		t.Fatal(err)
	}
	srv := adaptertest.Start(t, fx, adapter.Options{})

	// Flags as the machine notes advise: no background networking, which
	// this closed network refuses, and a fresh profile directory.
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("no-first-run", true), chromedp.Flag("disable-quic", true),
		chromedp.UserDataDir(t.TempDir()))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 60*time.Second)
	defer cancel()

	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+adapter.SetupPath), chromedp.WaitVisible("#mcp-url")); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	text := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Text(sel))
		if err != nil {
			t.Fatalf("read %s: %v", sel, err)
		}
		return v
	}
	body, url, claude, codex := text("body"), text("#mcp-url"), text("#claude"), text("#codex")
	title, err := chromedp.Run(ctx, chromedp.Title())
	if err != nil {
		t.Fatal(err)
	}
	lang, err := chromedp.Run(ctx, chromedp.AttributeValue("html", "lang"))
	if err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(`button[data-copy="claude"]`)); err != nil {
		t.Fatalf("click copy: %v", err)
	}
	status, err := chromedp.Run(ctx, chromedp.Poll[string](`document.getElementById("copy-status").textContent`, chromedp.WithPollingTimeout(10*time.Second)))
	if err != nil {
		t.Fatalf("copy status: %v", err)
	}
	want := srv.URL + adapter.MCPPath
	if url != want || claude != "claude mcp add --transport http pdpp "+want || codex != "codex mcp add pdpp --url "+want {
		t.Errorf("rendered url %q, claude %q, codex %q", url, claude, codex)
	}
	if i, j := strings.Index(body, want), strings.Index(body, "claude mcp add"); i < 0 || j < 0 || i > j {
		t.Errorf("the MCP URL must be shown before the client commands:\n%s", body)
	}
	low := strings.ToLower(body)
	for _, bad := range []string{"profile", "toolset", "owner", "bearer"} {
		if strings.Contains(low, bad) {
			t.Errorf("the rendered page mentions %q:\n%s", bad, body)
		}
	}
	if title == "" || lang.Value != "en" {
		t.Errorf("title %q, lang %q: the page needs both", title, lang.Value)
	}
	if !strings.Contains(status, "claude mcp add") {
		t.Errorf("the copy button reported %q", status)
	}
}
