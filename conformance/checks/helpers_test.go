package checks

import "github.com/pdpp-connect/mcpcheck/conformance"

// registry is every entry: what the runs of these tests report on.
var registry = func() []conformance.Entry {
	entries, err := LoadRegistry()
	if err != nil {
		panic(err) // TestRegistryCoversEveryScenario says which entry
	}
	return entries
}()
