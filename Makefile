GO ?= go
GOFMT ?= gofmt
SHELLCHECK ?= shellcheck

# Tools are pinned in .ci/tools.mod (staticcheck 2026.2.2 = module v0.8.2,
# govulncheck), not in go.mod, so that SDK users do not inherit them.
TOOL := $(GO) tool -modfile=.ci/tools.mod

# The commit --version names (the version is cmd/session-starter/version.go's).
COMMIT ?= $(shell git describe --always --dirty --abbrev=12 --exclude '*' 2>/dev/null || echo unknown)

BIN := bin/session-starter
CROSS_GOOS := darwin freebsd windows linux
# Linux builds on other architectures: the raw children's nosplit chains
# are checked by the linker per architecture, and 32-bit types differ.
CROSS_LINUX_GOARCH := arm64 386
# The released arm64 builds of macOS and FreeBSD (their compile-time
# struct sizes), and FreeBSD's 32-bit ports, which build and refuse every
# session: their files without the 64-bit procctl and kinfo_proc must keep
# compiling. go vet type-checks each, tests included.
CROSS_VET := darwin/arm64 freebsd/arm64 freebsd/386 freebsd/arm
# The nested modules (starter/mcp: the Go MCP SDK's transport;
# scripts/lifetime/goclient: the lifetime suite's Go client), with
# dependencies of their own; ./... of the main module skips them, so each
# target that covers every package runs in each of them too.
NESTED_MODULES := starter/mcp scripts/lifetime/goclient
SHELL_SCRIPTS := $(wildcard scripts/*.sh scripts/bench/*.sh scripts/containers/*.sh scripts/dist/*.sh scripts/lifetime/*.sh) scripts/vm/run scripts/vm/kernels .ci/run

.DEFAULT_GOAL := help

.PHONY: help
help: ## Show this help
	@echo "Targets:"
	@grep -hE '^[a-zA-Z0-9_-]+:.*## ' $(MAKEFILE_LIST) | \
		awk 'BEGIN {FS = ":.*## "}; {printf "  %-13s %s\n", $$1, $$2}'

.PHONY: build
build: ## Build a static binary at bin/session-starter
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w -X main.commit=$(COMMIT)" \
		-o $(BIN) ./cmd/session-starter

.PHONY: test
test: ## Run every test with the race detector, the nested modules' too (the session tests build the binary themselves)
	$(GO) test -race -count=1 -timeout 15m -json ./... | $(GO) run ./scripts/progress
	@set -e; for m in $(NESTED_MODULES); do \
		echo "$$m: go test -race ./..."; \
		(cd "$$m" && $(GO) test -race -count=1 -timeout 15m ./...); \
	done

# The long variants of the fault tests: 5,000 kill trials per
# role, 1,000 sessions under PID reuse, 40 fork storms, a 10,000-wide
# group, 5,000 in-process sessions; then the fuzz targets, the slow ones
# counted in inputs (each input runs real processes). Not run by CI.
TORTURE_RUN := AtAnyMoment|TestGateSIGKILLedBeforeItsGoAhead|AReusedPID|ForkStorm|ThousandsOfSleepers|AThousandSessions

.PHONY: torture
torture: ## Run the long fault tests and the fuzz targets (~10 min; not in CI)
	SESSION_STARTER_TORTURE=1 $(GO) test -count=1 -timeout 60m -v -run '$(TORTURE_RUN)' ./cmd/session-starter/
	SESSION_STARTER_TORTURE=1 $(GO) test -count=1 -timeout 20m -v -run 'ReusedNumber' ./starter/contain/
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime 60s ./cmd/session-starter/
	$(GO) test -run '^$$' -fuzz '^FuzzGoAhead$$' -fuzztime 2000x ./gate/
	$(GO) test -run '^$$' -fuzz '^FuzzFinishMessage$$' -fuzztime 2000x ./guard/
	$(GO) test -run '^$$' -fuzz '^FuzzHelperMessages$$' -fuzztime 60s ./starter/contain/

# The Windows build's tests run under Wine (Debian's wine64 8.0 with the
# stand-in DLL of scripts/wine/); scripts/wine-setup.sh installs what is
# missing. Console control events do not work under Wine: those tests skip
# there and run on real Windows (.github/workflows/ci.yml).
.PHONY: test-windows
test-windows: ## Run the Windows tests under Wine (installs wine64 and mingw-w64 where missing)
	GO=$(GO) bash scripts/wine-setup.sh go-test -count=1 -timeout 10m ./...

# The session suite against the portable build (-tags portable): the
# code paths of macOS on Linux, each run of the product under a seccomp
# filter that refuses pidfd_send_signal and PR_SET_CHILD_SUBREAPER. The
# cases that need the subreaper or a cgroup skip, saying why. The gate's,
# the guard's, the starter's and the internal packages' own tests run
# in-process with the tag too (without the filter).
.PHONY: test-portable
test-portable: ## Run the session suite against the portable build (macOS's code paths, on Linux)
	$(GO) test -tags portable -count=1 -timeout 15m ./cmd/session-starter/ ./gate/ ./guard/ ./starter/... ./internal/...

# The kernel-dependent packages' tests (the session suite, the gate's,
# the guard's, the starter's and the internal packages') on real Debian
# kernels: 6.1 (bookworm, this machine's own sources), 6.12
# (bookworm-backports) and 7.x (trixie-backports), each booted once under
# QEMU by scripts/vm/run, with the test binaries built here. Needs root;
# installs qemu-system-x86 and fetches the kernels with apt where missing.
# About 10 minutes a kernel under TCG. KERNELS picks the suites ("host" is
# this machine's own). CI runs a subset of it (scripts/vm/kernels --ci).
KERNELS ?= host bookworm-backports trixie-backports

.PHONY: test-kernels
test-kernels: ## Run the kernel-dependent tests on Linux 6.1, 6.12 and 7.x, each booted under QEMU (root; ~30 min)
	GO=$(GO) bash scripts/vm/kernels $(KERNELS)

# staticcheck runs every check but ST1003 (no ALL_CAPS or underscores in
# names): internal/sys re-exports x/sys/unix names as they are spelled
# there (O_RDONLY, Sigset_t), so that a call reads like the system call.
# The native and the portable build are checked, and the other platforms'
# files (a staticcheck built for this machine, run with GOOS set).
STATICCHECK_CHECKS := all,-ST1003

.PHONY: lint
lint: fmt tidy fuzz-build debug-build raw-check docs-check ## gofmt, go mod tidy, go vet (also of the portable and noraw builds), the fuzz, debug and raw-children checks, the docs' sizes, the pinned staticcheck and actionlint, shellcheck; the nested modules too
	$(GO) vet ./...
	$(GO) vet -tags portable ./...
	$(GO) vet -tags session_starter_noraw ./...
	$(TOOL) staticcheck -checks $(STATICCHECK_CHECKS) ./...
	$(TOOL) staticcheck -checks $(STATICCHECK_CHECKS) -tags portable ./...
	@set -e; tmp="$$(mktemp -d)"; trap 'rm -rf "$$tmp"' EXIT; \
	$(GO) build -modfile=.ci/tools.mod -o "$$tmp/staticcheck" honnef.co/go/tools/cmd/staticcheck; \
	for os in darwin freebsd windows; do \
		echo "GOOS=$$os staticcheck"; GOOS=$$os "$$tmp/staticcheck" -checks $(STATICCHECK_CHECKS) ./...; \
	done; \
	for m in $(NESTED_MODULES); do \
		for os in linux darwin freebsd windows; do \
			echo "$$m: GOOS=$$os go vet ./... && staticcheck ./..."; \
			(cd "$$m" && GOOS=$$os $(GO) vet ./... && GOOS=$$os "$$tmp/staticcheck" -checks $(STATICCHECK_CHECKS) ./...); \
		done; \
	done
	$(TOOL) actionlint .github/workflows/ci.yml
	$(SHELLCHECK) $(SHELL_SCRIPTS)

# A debugger's build (-gcflags='all=-N -l': no optimization, no inlining)
# links the raw children too: the linker checks every linked nosplit
# chain, and no build tag can see -gcflags. The command, and a program of
# a Go Engine that imports starter/contain, as Delve builds them.
.PHONY: debug-build
debug-build: ## Build the command and starter/contain's tests with -gcflags='all=-N -l', as debuggers do
	@set -e; tmp="$$(mktemp -d)"; trap 'rm -rf "$$tmp"' EXIT; \
	$(GO) build -gcflags='all=-N -l' -o "$$tmp/session-starter" ./cmd/session-starter; \
	$(GO) test -c -gcflags='all=-N -l' -o "$$tmp/contain.test" ./starter/contain

# The raw children (internal/sys/rawfork) of the optimized build, as
# shipped, call only their own nosplit functions and the system call
# leaf, and reach no runtime.panic* site.
.PHONY: raw-check
raw-check: ## Disassemble the raw children of an optimized build and check what they call
	@set -e; tmp="$$(mktemp -d)"; trap 'rm -rf "$$tmp"' EXIT; \
	CGO_ENABLED=0 $(GO) build -o "$$tmp/session-starter" ./cmd/session-starter; \
	GO=$(GO) bash scripts/check-raw-children.sh "$$tmp/session-starter"

# The gate's, the guard's and the session tests with the product built as
# a debugger builds it (-N -l), and the same tests on the next Go release
# the raw children are fenced to (fetched through the module proxy).
NEXT_GO ?= go1.27.4

.PHONY: test-debug
test-debug: ## Run the gate, guard and session tests with everything built -gcflags='all=-N -l'
	SESSION_STARTER_TEST_GCFLAGS='all=-N -l' $(GO) test -gcflags='all=-N -l' -count=1 -timeout 10m ./gate/ ./guard/ ./cmd/session-starter/

.PHONY: test-next-go
test-next-go: ## Run the gate, guard and session tests on $(NEXT_GO) (GOTOOLCHAIN)
	GOTOOLCHAIN=$(NEXT_GO) $(GO) test -count=1 -timeout 10m ./gate/ ./guard/ ./cmd/session-starter/

# The raw gate's and guard's child code is //go:nosplit: the linker checks
# that each of its call chains fits in the stack that is left, and a build
# for fuzzing instruments every frame, so a chain that fits in a plain
# build may not there. One input of each fuzz target builds them.
.PHONY: fuzz-build
fuzz-build: ## Build and run each fuzz target once (-fuzz instruments every frame)
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime 1x ./cmd/session-starter/ >/dev/null
	$(GO) test -run '^$$' -fuzz '^FuzzGoAhead$$' -fuzztime 1x ./gate/ >/dev/null
	$(GO) test -run '^$$' -fuzz '^FuzzFinishMessage$$' -fuzztime 1x ./guard/ >/dev/null

.PHONY: tidy
tidy: ## Fail if go mod tidy would change go.mod or go.sum, of the main module or a nested one
	@set -e; tmp="$$(mktemp -d)"; trap 'rm -rf "$$tmp"' EXIT; \
	for m in . $(NESTED_MODULES); do \
		cp "$$m/go.mod" "$$tmp/go.mod"; cp "$$m/go.sum" "$$tmp/go.sum"; \
		(cd "$$m" && $(GO) mod tidy); \
		if ! cmp -s "$$m/go.mod" "$$tmp/go.mod" || ! cmp -s "$$m/go.sum" "$$tmp/go.sum"; then \
			echo "go mod tidy changes $$m/go.mod or $$m/go.sum: run it there and commit"; \
			cp "$$tmp/go.mod" "$$m/go.mod"; cp "$$tmp/go.sum" "$$m/go.sum"; \
			exit 1; \
		fi; \
	done

.PHONY: vuln
vuln: ## Run the pinned govulncheck (needs its vulnerability database online; not in CI)
	$(TOOL) govulncheck ./...

.PHONY: fmt
fmt: ## Fail if gofmt would change any file
	@out="$$($(GOFMT) -l .)"; \
	if [ -n "$$out" ]; then \
		echo "gofmt -l lists files that need gofmt -w:"; \
		echo "$$out"; \
		exit 1; \
	fi

.PHONY: cross
cross: ## go build, go vet and go test -c of every package (the nested modules' too) for darwin, freebsd, windows and linux, and Linux on arm64 and 386; go vet of macOS and FreeBSD on arm64 and FreeBSD on 386 and arm
	@set -e; tmp="$$(mktemp -d)"; trap 'rm -rf "$$tmp"' EXIT; \
	for os in $(CROSS_GOOS); do \
		echo "GOOS=$$os: go build ./... && go vet ./... && go test -c ./..."; \
		GOOS=$$os $(GO) build ./...; \
		GOOS=$$os $(GO) vet ./...; \
		GOOS=$$os $(GO) test -c -o "$$tmp/" ./...; \
		for m in $(NESTED_MODULES); do \
			echo "$$m: GOOS=$$os go build ./... && go vet ./... && go test -c ./..."; \
			(cd "$$m" && GOOS=$$os $(GO) build ./... && GOOS=$$os $(GO) vet ./... && \
				GOOS=$$os $(GO) test -c -o "$$tmp/" ./...); \
		done; \
	done; \
	for arch in $(CROSS_LINUX_GOARCH); do \
		echo "GOOS=linux GOARCH=$$arch: go vet ./... && go test -c ./..."; \
		GOOS=linux GOARCH=$$arch $(GO) vet ./...; \
		GOOS=linux GOARCH=$$arch $(GO) test -c -o "$$tmp/" ./...; \
		for m in $(NESTED_MODULES); do \
			echo "$$m: GOOS=linux GOARCH=$$arch go vet ./... && go test -c ./..."; \
			(cd "$$m" && GOOS=linux GOARCH=$$arch $(GO) vet ./... && \
				GOOS=linux GOARCH=$$arch $(GO) test -c -o "$$tmp/" ./...); \
		done; \
	done; \
	for t in $(CROSS_VET); do \
		echo "GOOS=$${t%/*} GOARCH=$${t#*/}: go vet ./..."; \
		GOOS=$${t%/*} GOARCH=$${t#*/} $(GO) vet ./...; \
	done

# Every release artifact of the version in cmd/session-starter/version.go,
# reproducibly, in dist/: static binaries for linux, darwin, freebsd and
# windows on amd64 and arm64, the source archive, the npm packages, the
# wheels, the .debs, the Homebrew formula, the man page and the shell
# completions (cmd/session-starter/docs), and SHA256SUMS
# (scripts/dist/build.sh says what and how; scripts/dist/RELEASE.md how
# they are published). Needs node, npm, python3 and dpkg-deb.
.PHONY: dist
dist: ## Build every release artifact (binaries, npm, wheels, .deb, Homebrew formula, man page, completions, SHA256SUMS) in dist/
	GO=$(GO) bash scripts/dist/build.sh

# Installs what make dist wrote, offline, into temporary places (npm
# tarballs into a fresh project, the Linux wheel into a venv, the .deb with
# dpkg-deb -x, the source archive built as Homebrew would) and runs a real
# session through each; renders the .deb's man page with man -l,
# completes --wat with its bash and fish completions and reads its zsh one
# with zsh -n (needs man-db, zsh and fish); refuses artifacts whose sums
# do not match. Then
# the launch API suites of make test-launch run against the installed
# npm package and wheel (their devDependencies from the cache that make
# dist-deps fills).
.PHONY: dist-check
dist-check: ## Install each artifact of dist/ offline, run a real session and the launch API suites through it (make dist-deps first)
	GO=$(GO) bash scripts/dist/check.sh

# The launch APIs of the npm package (launch(), node --test, with the
# official MCP TypeScript SDK's client) and of the Python module (launch(),
# launch_async(), unittest, with a JSON-RPC client and server on the
# standard library) against bin/session-starter, offline; both parse the
# record fixtures of starter/launch/testdata/records. make dist-check runs
# the same suites against the installed packages.
.PHONY: test-launch
test-launch: build ## Run the npm and Python launch API tests against bin/session-starter (offline; the MCP SDK tests need make dist-deps)
	bash scripts/dist/launchers.sh source $(BIN)

# The lifetime suite: the official MCP TypeScript and Go clients, a
# Python client on the fake Python SDK and the official ACP client, each a
# process of its own, start misbehaving stdio servers through each of
# session-starter's integrations and bare, and end by close(), SIGTERM and
# SIGKILL. Through session-starter nothing may be left within the stdin
# grace + the grace + 1 s; bare, each leaking server must leak. Prints
# the table and appends it to scripts/bench/NOTEBOOK.md (offline: make
# dist-deps fills the npm cache first).
.PHONY: test-lifetime
test-lifetime: build ## Run the lifetime suite (MCP clients × integrations × servers × endings) and append its table to the notebook
	GO=$(GO) bash scripts/lifetime/run.sh $(BIN) scripts/bench/NOTEBOOK.md

# The container tests (scripts/containers): session-starter as PID 1 of a
# podman container and pod, and through the docker client against
# podman's Docker API. scripts/containers/setup.sh installs podman and
# runc where missing (root, apt) and imports the test image without a
# registry. Under CI=true a test that cannot run fails.
.PHONY: test-containers
test-containers: ## Run the container tests on podman (root; installs podman and runc where missing)
	SESSION_STARTER_CONTAINERS=1 $(GO) test -count=1 -timeout 15m -v ./scripts/containers/

# The one step of the checks that needs the npm registry: npm ci of
# scripts/dist/npm/test/package-lock.json (the MCP TypeScript SDK,
# TypeScript, @types/node) into the npm cache that make test-launch and
# make dist-check then install from offline.
.PHONY: dist-deps
dist-deps: ## Fetch the launch API tests' npm devDependencies into the npm cache (needs the npm registry)
	bash scripts/dist/launchers.sh deps

# The docs' sizes against their targets: README.md at most 350 lines, the
# manual (go doc -all ./cmd/session-starter) 700, --help 60, and a mean
# sentence of at most 25 words in each non-internal package's doc.go
# (scripts/docstats says how sentences are counted). docstats prints the
# table; docs-check (in lint) fails when one is over, so that they hold.
.PHONY: docstats
docstats: build ## Print the docs' sizes against their targets (README, manual, --help, package docs' sentences)
	$(GO) run ./scripts/docstats -go '$(GO)' -help-cmd '$(BIN) --help'

.PHONY: docs-check
docs-check: build ## Fail when a doc is over its size (README, manual, --help, package docs' sentences)
	$(GO) run ./scripts/docstats -check -go '$(GO)' -help-cmd '$(BIN) --help'

.PHONY: demo
demo: build ## Run a short demo session: a leaked sleep is ended, exit status 3 mirrored
	bash scripts/demo.sh

.PHONY: bench
bench: build ## Benchmark report: start-up, reaction, group end, idle cost (scripts/bench/run.sh, ~4 min)
	bash scripts/bench/run.sh

# The start-up with limits against without, in a VM with a pure cgroup v2
# (scripts/vm/run): this host's cgroup v2 has none of the controllers.
.PHONY: bench-limits
bench-limits: ## Start-up of a session with --max-tasks/--max-memory/--max-cpu against without, in the VM (~3 min)
	bash scripts/bench/limits.sh
