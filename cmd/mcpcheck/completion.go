package main

import (
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance/checks"
	"github.com/pdpp-connect/mcpcheck/fakers"
	"github.com/spf13/cobra"
)

// addCompletions teaches cobra's built-in `mcpcheck completion bash|zsh|
// fish|powershell` scripts the scenario ids and fixture names, so
// `mcpcheck S01<TAB>` lists S010…S019 with their titles.
func addCompletions(root *cobra.Command) {
	root.CompletionOptions.DisableDefaultCmd = false
	root.ValidArgsFunction = completeScenarioIDs
	_ = root.RegisterFlagCompletionFunc("fixture", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return append(fakers.Fixtures(), "scale:"), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	})
	_ = root.RegisterFlagCompletionFunc("rs", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		out := []string{"fixture", "real"}
		for _, g := range realGrants {
			out = append(out, "real:"+g)
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	})
	_ = root.RegisterFlagCompletionFunc("focus", func(cmd *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
		given, _ := cmd.Flags().GetStringArray("focus")
		return completeScenarioIDs(cmd, given, prefix)
	})
	_ = root.RegisterFlagCompletionFunc("skip", completeScenarioNames)
	_ = root.RegisterFlagCompletionFunc("label", completeLabels)
}

// completeScenarioNames offers the id-slug names --skip matches against.
func completeScenarioNames(_ *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
	entries, err := checks.LoadRegistry()
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	var out []string
	for _, e := range entries {
		if name := e.Scenario.Name(); strings.HasPrefix(strings.ToUpper(name), strings.ToUpper(prefix)) {
			out = append(out, name+"\t"+e.Scenario.Title)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeLabels completes the last label of a --label expression
// ("seed:001 && !mo" offers "seed:001 && !mode:bb", …): every label the
// registry's scenarios carry.
func completeLabels(_ *cobra.Command, _ []string, expr string) ([]string, cobra.ShellCompDirective) {
	entries, err := checks.LoadRegistry()
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	cut := strings.LastIndexAny(expr, "&|!(), ") + 1
	head, word := expr[:cut], expr[cut:]
	var out []string
	for _, e := range entries {
		for _, l := range e.Labels() {
			if strings.HasPrefix(l, word) && !slices.Contains(out, head+l) {
				out = append(out, head+l)
			}
		}
	}
	slices.Sort(out)
	return out, cobra.ShellCompDirectiveNoFileComp
}

func completeScenarioIDs(_ *cobra.Command, given []string, prefix string) ([]string, cobra.ShellCompDirective) {
	entries, err := checks.LoadRegistry()
	if err != nil {
		return nil, cobra.ShellCompDirectiveError
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Scenario.ID, strings.ToUpper(prefix)) && !slices.Contains(given, e.Scenario.ID) {
			out = append(out, e.Scenario.ID+"\t"+e.Scenario.Title)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
