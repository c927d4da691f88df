# mcpcheck — two commands do everything:
#   make report   the full conformance report against the reference adapter
#   make ci       every test: the Go tests (with the setup page in a real
#                 Chromium), the full mutant sweep (make matrix), OpenSpec's
#                 strict validation of scenarios/, the official MCP
#                 conformance suite, the MCP Inspector smoke test and the
#                 independent adapters scored against their verdicts.
#                 CI (.ci/run) runs exactly this.
# make test is the Go tests alone, for quick iterations.

GO        ?= go
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -X github.com/pdpp-connect/mcpcheck/conformance.version=$(VERSION) -X github.com/pdpp-connect/mcpcheck/adapter.Version=$(VERSION)
BIN       := bin

.PHONY: report test matrix adapters ci realrs openspec-validate junit-xsd official-conformance inspector-smoke build golden lint mutants fuzz load bench clean

report:
	$(GO) run ./cmd/mcpcheck

# The Ginkgo suite sets -ginkgo.no-color and -ginkgo.fail-on-empty itself
# (checks.Configuration in conformance/checks/suite.go): go test ./... cannot pass them.
# The mutant matrix (conformance/matrix) here judges each mutant on its own
# scenarios, and every conforming variant on the whole registry.
test:
	$(GO) test -timeout 30m ./...

# The full mutant sweep: the whole registry against every mutant (~240
# registry runs), which also finds undeclared collateral. A step of make ci
# with its own timeout: 26 min in a fresh clone's make ci on 2 cores at
# 662f974 (BENCHMARKS.md, "Test-suite time"), 1.7x under its timeout.
matrix:
	MCPCHECK_FULL_MATRIX=1 $(GO) test ./conformance/matrix -run '^TestMutantsAreKilledByTheirOwnChecks$$' -count=1 -timeout 45m

# mcpcheck against every adapter written without it (../shared/adapters and
# integration/adapters), each report scored against its adjudicated
# VERDICTS (score.py): no false failure, no false skip, 50 judged. Needs
# node/npm, perl and python3; skips, saying so, without ../shared.
adapters:
	bash .ci/adapters.sh
# The last two also need npm: they install Node 22 and the tools pinned in
# .ci/npm/ into .cache/npm (gitignored) on first use. One step after another,
# even under make -j: they share that install.
ci:
	bash .ci/install-chromium.sh
	MCPCHECK_REQUIRE_CHROMIUM=1 MCPCHECK_INSTALL_TEST=1 $(MAKE) --no-print-directory test
	$(MAKE) --no-print-directory matrix
	$(MAKE) --no-print-directory realrs
	bash .ci/openspec-validate.sh
	bash .ci/junit-xsd.sh
	bash .ci/official-conformance.sh
	bash .ci/inspector-smoke.sh
	$(MAKE) --no-print-directory adapters

# pdpp-mcp and mcpcheck --url against the real PDPP reference RS, started
# by internal/realrskit into .cache/realrs and stopped after. The upstream
# source is pinned by sha256 and tree digest (GitHub's archive of the commit
# is checked by its tree and repacked): REALRS_TARBALL names a local copy (CI's is
# ../shared/realrs, found on its own), else it is downloaded once into
# .cache/realrs/archive (REALRS_URL overrides where from); the first start
# also downloads ~127 MB of toolchain and packages from npm, later starts
# take ~5 s. PDPP_REAL_RS_URL and PDPP_REAL_RS_TOKEN_DIR point it at
# another real RS. Off in make test: it needs npm and the archive.
realrs:
	MCPCHECK_REALRS=1 $(GO) test ./integration/realrs -count=1 -v -timeout 20m

# mcpcheck's JUnit reports against the Jenkins JUnit XSD (xmllint).
junit-xsd:
	bash .ci/junit-xsd.sh

# The scenario catalog, scenarios/openspec, under the official OpenSpec CLI's --strict.
openspec-validate:
	bash .ci/openspec-validate.sh

official-conformance:
	bash .ci/official-conformance.sh

inspector-smoke:
	bash .ci/inspector-smoke.sh

build:
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN)/ ./cmd/...

# Rewrites golden/ from the reference adapter and deletes goldens nothing produces. Review `git diff golden/` before committing.
golden:
	GOLDIE_UPDATE=1 $(GO) test ./conformance -run TestConformance -ginkgo.label-filter=golden -ginkgo.no-color
	git --no-pager diff --stat -- golden/

# The mutant matrix: mutant, the ids it must fail, verdict, the ids that failed.
mutants:
	$(GO) run ./cmd/mcpcheck mutants

# Each adapter fuzz target for FUZZTIME; docs/FUZZING.md has the 10-minute runs.
FUZZTIME     ?= 30s
# Every Fuzz function of ./adapter, listed by go test itself, so a new one
# is fuzzed without editing this file.
FUZZ_TARGETS  = $(shell $(GO) test ./adapter -list '^Fuzz' | grep '^Fuzz')
fuzz:
	for t in $(FUZZ_TARGETS); do $(GO) test ./adapter -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 10s -parallel 1 -timeout 30m || exit 1; done

# 64 clients x 1,000 calls against pdpp-mcp serve; BENCHMARKS.md has the result.
load:
	MCPCHECK_LOAD=1 $(GO) test ./adapter -run '^TestLoad$$' -count=1 -v -timeout 15m

# The adapter benchmark table (BENCHMARKS.md), then the in-process Go
# benchmarks of the fixture RS and the whole chain (for pprof).
bench:
	$(GO) run ./cmd/mcpcheck bench --json bench.json
	$(GO) test ./fakers ./adapter -run '^$$' -bench . -benchtime 2s

lint:
	test -z "$$(gofmt -l $$(git ls-files '*.go'))"
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

clean:
	rm -rf $(BIN) .cache
