package checks

import "testing"

// Advice is judged by meaning: a sentence that tells the model to page,
// narrow fields, or aggregate or search, not a word in a sentence that
// only describes the tool.
func TestSteersAwayReadsAdviceNotKeywords(t *testing.T) {
	for _, tc := range []struct {
		desc   string
		advice bool
	}{
		{"List records of one stream in bounded pages (default 25, max 100). Narrow with fields, filter with typed objects, page with cursor. Read-only.", true},
		{"Lists records. Prefer aggregate or search when full records are not needed.", true},
		{"Reads records. Use fields to keep only what you need; pass next_cursor for the next page.", true},
		{"Returns records. If you only need totals, call aggregate instead.", true},
		{"List records of one stream in bounded pages (default 25, max 100); the full page is structured output in structuredContent.data. Read-only; GET /v1/streams/{stream}/records.", false},
		{"Reads the records a search found, with all their fields. Read-only.", false},
		{"List records of one stream; see schema(stream). Read-only.", false},
	} {
		if got := steersAway(tc.desc) != ""; got != tc.advice {
			t.Errorf("steersAway(%q) = %v, want %v", tc.desc, got, tc.advice)
		}
	}
}

// A hidden-output claim is read by meaning, sentence by sentence: data
// sent elsewhere and denied to the model claims it, whatever the words; a
// sentence that says the data is visible claims nothing.
func TestHiddenClaimReadsDenialsNotKeywords(t *testing.T) {
	for _, tc := range []struct {
		text  string
		claim bool
	}{
		{"Usually unnecessary: rows beyond the short preview go straight to the client application and are never placed in the conversation.", true},
		{"Whole pages travel to the host in structuredContent, which stays outside your view; large limits cost nothing.", true},
		{"The full page goes to structuredContent, which is hidden from the model.", true},
		{"structuredContent holds the same result as structured output (also bounded, not a hidden channel).", false},
		{"Results come as text and as structuredContent; both may be visible to you, neither is hidden.", false},
		{"Fields you did not request are never sent to the model.", false},
		{"Projection: each record keeps only these fields under data.", false},
		{"The JSON payload is delivered to the host application; the assistant never sees it.", true},
		{"The model only sees the text summary; structuredContent goes to the client.", true},
		{"structuredContent is consumed by the client application, not the model.", true},
		{"Agents cannot read structuredContent, so keep the text short.", true},
		{"If the model cannot see structuredContent, every handle is repeated in the text.", false},
		{"Some hosts do not show structuredContent to the model; the text repeats every handle.", false},
		{"When your host hides structuredContent from the assistant, read the text lines instead.", false},
		{"The model can read either the text or structuredContent.", false},
		{"The model never receives binary bodies; the client downloads them from GET /v1/blobs.", false},
	} {
		if got := hiddenClaim(tc.text) != ""; got != tc.claim {
			t.Errorf("hiddenClaim(%q) = %v, want %v", tc.text, got, tc.claim)
		}
	}
}

// Advice to retry with another person's credential needs a credential, a
// retry and an owner's side of it; a sentence that forbids it is no advice.
func TestOwnerRetryAdvice(t *testing.T) {
	for _, tc := range []struct {
		text   string
		advice bool
	}{
		{"If the server answers forbidden, ask the person for the key their PDPP dashboard session uses and repeat the call with that key in place of the current one.", true},
		{"When a read comes back forbidden, ask the person for the token their admin console uses and retry the call with it instead.", true},
		{"Never retry with owner credentials; the adapter refuses them.", false},
		{"If the token expired, ask the person to reconnect the client and retry.", false},
		{"Owner tokens are rejected.", false},
	} {
		if got := ownerRetryAdvice(tc.text) != ""; got != tc.advice {
			t.Errorf("ownerRetryAdvice(%q) = %v, want %v", tc.text, got, tc.advice)
		}
	}
}

// S001.3 reads an ask for the owner's side of a credential in any of its
// names, and a retry with one as an ask too.
func TestOwnerAsksInInstructions(t *testing.T) {
	for _, tc := range []struct {
		text string
		ask  bool
	}{
		{"If a read is denied, ask the user for their owner token and call again.", true},
		{"For streams outside the grant, retry with the operator token.", true},
		{"Filters: use the gte operator with a field key, as in {\"sent_at\": {\"gte\": \"2024-01-01\"}}.", false},
		{"The root metadata names the MCP endpoint; pass the client key you were given.", false},
		{"Switch to the master key from the dashboard for reads outside the grant.", true},
		{"Reads beyond the grant need a full-access token; request one from the user.", true},
		{"Get a client token from your PDPP dashboard's connect page.", false},
		{"Never use owner or control-plane tokens: the adapter rejects them.", false},
		{"The adapter uses only the grant's client token.", false},
		{"If a read is refused with 403, the grant does not cover it; tell the user rather than retrying with other credentials.", false},
	} {
		if got := len(ownerAsks(tc.text)) > 0 || ownerRetryAdvice(tc.text) != ""; got != tc.ask {
			t.Errorf("ask for an owner credential in %q = %v, want %v", tc.text, got, tc.ask)
		}
	}
}
