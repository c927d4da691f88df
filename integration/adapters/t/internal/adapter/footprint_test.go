package adapter

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolsListBudget is the documented byte budget for the serialized default
// tools/list result (six tools). Raise it only deliberately.
const toolsListBudget = 9500

func connectInMemory(t *testing.T, a *Adapter, src TokenSource) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	srv := a.NewServer(src)
	ct, st := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cl := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	cs, err := cl.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestToolsListFootprint(t *testing.T) {
	a, err := New(Config{RSURL: "http://127.0.0.1:9"})
	if err != nil {
		t.Fatal(err)
	}
	cs := connectInMemory(t, a, StaticToken("unused"))
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	sort.Strings(names)
	want := append([]string(nil), ToolNames...)
	sort.Strings(want)
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Fatalf("tool membership = %v, want exactly %v", names, want)
	}
	payload, _ := json.Marshal(res)
	if len(payload) > toolsListBudget {
		t.Errorf("tools/list payload %d bytes exceeds budget %d", len(payload), toolsListBudget)
	}
	body := string(payload)
	for _, banned := range []string{"connector_instance_id", "list_streams", "fetch_blob", "subscription", "webhook", "profile", "owner_token"} {
		if strings.Contains(strings.ToLower(body), banned) {
			t.Errorf("tools/list mentions %q", banned)
		}
	}
	// connection_id everywhere, with action-specific (non-duplicated) descriptions.
	seen := map[string]string{}
	for _, tool := range res.Tools {
		if !strings.HasPrefix(tool.Description, "Read-only.") {
			t.Errorf("%s: description must state it is read-only", tool.Name)
		}
		if !strings.Contains(tool.Description, "/v1/") {
			t.Errorf("%s: description must name the RS endpoint", tool.Name)
		}
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("%s: readOnlyHint missing", tool.Name)
		}
		sch, _ := json.Marshal(tool.InputSchema)
		var m struct {
			Properties map[string]struct {
				Description string `json:"description"`
			} `json:"properties"`
		}
		json.Unmarshal(sch, &m)
		cp, ok := m.Properties["connection_id"]
		if !ok {
			t.Errorf("%s: no connection_id argument", tool.Name)
			continue
		}
		if other, dup := seen[cp.Description]; dup {
			t.Errorf("%s and %s repeat the same connection_id guidance %q", tool.Name, other, cp.Description)
		}
		seen[cp.Description] = tool.Name
		// Cross-tool guidance lives in the instructions, not in tool schemas.
		for _, long := range []string{"ambiguous_connection", "available_connections", "Errors are typed"} {
			if strings.Contains(string(sch)+tool.Description, long) {
				t.Errorf("%s repeats cross-tool guidance %q", tool.Name, long)
			}
		}
	}
	// Structured output is described as structured output, never as hidden.
	if strings.Contains(strings.ToLower(body), "hidden") {
		t.Errorf("tool descriptions must not call structuredContent hidden")
	}
	if !strings.Contains(body, "structuredContent") {
		t.Errorf("a read tool description should describe structuredContent as structured output")
	}
}

func TestInstructions(t *testing.T) {
	a, _ := New(Config{RSURL: "http://127.0.0.1:9"})
	cs := connectInMemory(t, a, StaticToken("unused"))
	ins := cs.InitializeResult().Instructions
	if ins == "" {
		t.Fatal("initialize result has no instructions")
	}
	head := ins
	if len(head) > 512 {
		head = head[:512]
	}
	for _, want := range []string{"schema()", "connection_id", "typed", "filter", "bounded", "next_cursor", "narrow"} {
		if !strings.Contains(head, want) {
			t.Errorf("first 512 chars of instructions lack %q", want)
		}
	}
	// The core paragraph is self-contained within 512 characters.
	if p := strings.SplitN(ins, "\n\n", 2)[0]; len(p) > 512 {
		t.Errorf("core instruction paragraph is %d chars (> 512)", len(p))
	}
	low := strings.ToLower(ins)
	for _, bad := range []string{"use the owner", "owner token to", "provide an owner", "control-plane token to"} {
		if strings.Contains(low, bad) {
			t.Errorf("instructions must not ask for owner/control-plane credentials (%q)", bad)
		}
	}
}
