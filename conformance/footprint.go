package conformance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/pdpp-connect/mcpcheck/conformance/termsafe"
	"github.com/tiktoken-go/tokenizer"
)

// A Footprint is the tools/list payload as received: the tools array's bytes
// and o200k tokens, per tool and in total, plus the instructions.
type Footprint struct {
	TotalBytes         int             `json:"total_bytes"`
	TotalTokens        int             `json:"total_tokens"`
	Tools              []ToolFootprint `json:"tools"`
	InstructionsChars  int             `json:"instructions_chars"`
	InstructionsTokens int             `json:"instructions_tokens"`
	BudgetBytes        int             `json:"budget_bytes"`
}

// ToolFootprint is one tool's share.
type ToolFootprint struct {
	Name   string `json:"name"`
	Bytes  int    `json:"bytes"`
	Tokens int    `json:"tokens"`
	// Definition is the tool as received, normalised ([Normalize]):
	// what `mcpcheck diff` classifies changes of, as --golden-dir does.
	Definition any `json:"definition,omitempty"`
}

var (
	o200kOnce  sync.Once
	o200k      tokenizer.Codec
	o200kError error
)

// CountTokens counts o200k_base tokens offline.
func CountTokens(s string) (int, error) {
	o200kOnce.Do(func() { o200k, o200kError = tokenizer.Get(tokenizer.O200kBase) })
	if o200kError != nil {
		return 0, o200kError
	}
	return o200k.Count(s)
}

// ToolsArrayBytes is the byte length of the tools array exactly as its
// elements arrived: "[" + elements joined by "," + "]". That is the
// JSON.stringify(tools) figure the seed budgets refer to when the server
// emits compact JSON.
func ToolsArrayBytes(raw []json.RawMessage) []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, r := range raw {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(r)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// MeasureFootprint measures a target's tools and instructions.
func MeasureFootprint(t *Target, budget int) (*Footprint, error) {
	all := ToolsArrayBytes(t.ToolsRaw)
	fp := &Footprint{TotalBytes: len(all), BudgetBytes: budget}
	var err error
	if fp.TotalTokens, err = CountTokens(string(all)); err != nil {
		return nil, fmt.Errorf("count tokens: %w", err)
	}
	for _, r := range t.ToolsRaw {
		var head struct{ Name string }
		_ = json.Unmarshal(r, &head)
		n, err := CountTokens(string(r))
		if err != nil {
			return nil, err
		}
		var def any
		if norm, err := Normalize(r); err == nil {
			_ = json.Unmarshal(norm, &def) // redacted with the report
		}
		fp.Tools = append(fp.Tools, ToolFootprint{Name: t.redact(head.Name), Bytes: len(r), Tokens: n, Definition: def})
	}
	sort.Slice(fp.Tools, func(i, j int) bool { return fp.Tools[i].Name < fp.Tools[j].Name })
	if t.Init != nil {
		fp.InstructionsChars = len([]rune(t.Init.Instructions))
		if fp.InstructionsTokens, err = CountTokens(t.Init.Instructions); err != nil {
			return nil, err
		}
	}
	return fp, nil
}

// WriteTable prints the footprint as an aligned table.
func (fp *Footprint) WriteTable(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "tool\tbytes\to200k tokens\t")
	for _, t := range fp.Tools {
		fmt.Fprintf(tw, "%s\t%d\t%d\t\n", termsafe.Line(t.Name), t.Bytes, t.Tokens)
	}
	fmt.Fprintf(tw, "tools/list total\t%d\t%d\t\n", fp.TotalBytes, fp.TotalTokens)
	fmt.Fprintf(tw, "instructions (%d chars)\t\t%d\t\n", fp.InstructionsChars, fp.InstructionsTokens)
	tw.Flush()
	pct := 0.0
	if fp.BudgetBytes > 0 {
		pct = 100 * float64(fp.TotalBytes) / float64(fp.BudgetBytes)
	}
	fmt.Fprintf(w, "budget %d B: %s (%.0f%% used)\n", fp.BudgetBytes, map[bool]string{true: "within", false: "OVER"}[fp.TotalBytes < fp.BudgetBytes], pct)
}

// String renders the table.
func (fp *Footprint) String() string {
	var b strings.Builder
	fp.WriteTable(&b)
	return b.String()
}
