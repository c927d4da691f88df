# mcpcheck — two commands do everything:
#   make report   the full conformance report against the reference adapter
#   make test     every test (the same command CI runs)

GO        ?= go
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -X github.com/pdpp-connect/mcpcheck/conformance.version=$(VERSION) -X github.com/pdpp-connect/mcpcheck/adapter.Version=$(VERSION)
BIN       := bin

.PHONY: report test build golden lint mutants fuzz load clean

report:
	$(GO) run ./cmd/mcpcheck

# The Ginkgo suite sets -ginkgo.no-color and -ginkgo.fail-on-empty itself
# (conformance/conformance_suite_test.go): go test ./... cannot pass them.
test:
	$(GO) test ./...

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN)/ ./cmd/...

# Rewrites golden/ from the reference adapter. Review `git diff golden/` before committing.
golden:
	GOLDIE_UPDATE=1 $(GO) test ./conformance -run TestConformance -ginkgo.label-filter=golden -ginkgo.no-color
	git --no-pager diff --stat -- golden/

mutants:
	$(GO) test ./conformance -run 'TestMutantsAreKilledByTheirOwnChecks|TestEveryCheckHasAMutant' -v

# Each adapter fuzz target for FUZZTIME; docs/FUZZING.md has the 10-minute runs.
FUZZTIME     ?= 30s
FUZZ_TARGETS := FuzzParseRecordID FuzzRecordIDBeforeRS FuzzEncodeFilter FuzzEncodeExpand FuzzFieldWindow FuzzToolArguments FuzzToolCall FuzzRSBody
fuzz:
	for t in $(FUZZ_TARGETS); do $(GO) test ./adapter -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 10s -parallel 1 -timeout 30m || exit 1; done

# 64 clients x 1,000 calls against pdpp-mcp serve; BENCHMARKS.md has the result.
load:
	MCPCHECK_LOAD=1 $(GO) test ./adapter -run '^TestLoad$$' -count=1 -v -timeout 15m

lint:
	test -z "$$(gofmt -l $$(git ls-files '*.go'))"
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

clean:
	rm -rf $(BIN)
