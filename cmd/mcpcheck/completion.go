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
