package checks

// Seed 001: "the serialized payload SHALL stay below the configured
// budget" and "the test SHALL fail if an event-subscription management
// tool or developer-only tool appears". Exact membership is S012's.
var s016 = &Check{ID: "S016", Slug: "normal-footprint-membership-budget", Mode: ModeBB, Run: func(t *T) {
	t.Clause(1, func() { expectWithinBudget(t) })
	t.Clause(2, func() { expectNoForbiddenTools(t) })
}}
