# Cairn: the two commands a newcomer needs are `make run` and `make test`.
GO      ?= go
# Pure Go: SQLite (modernc) and PBF decompression need no C toolchain or
# headers, so the two commands work on a machine with only Go installed.
export CGO_ENABLED ?= 0
PKGS    ?= ./...
CAIRN   := $(GO) run ./cmd/cairn

.PHONY: run test fuzz bench bench-region bench-load bench-scale bench-uploads lint golden migrate guards build npm conformance

## run: start the server on the embedded defaults (SQLite in ./data, no Redis)
run:
	CAIRN_DEV=true $(CAIRN) serve

## test: run every test (PostgreSQL and Redis tests skip loudly when absent, fail under CI=true)
test:
	$(GO) test -count=1 $(PKGS)

## npm: install Node 22, the MCP clients and the conformance suite pinned in testdata/npm
## (the tests that drive real TypeScript clients, a browser client and the suite skip loudly without them)
npm:
	cd testdata/npm && npm ci --no-audit --no-fund --loglevel=error

## conformance: the official MCP conformance suite against the conformance product and the trip planner
conformance: npm
	$(GO) test -count=1 -run 'Conformance' ./examples/conformance/ ./planner/

## fuzz: run every fuzz target for FUZZTIME each (default 1m; CI runs them 3s each)
FUZZTIME ?= 1m
fuzz:
	FUZZTIME=$(FUZZTIME) GO=$(GO) scripts/fuzz.sh $(PKGS)

## bench: run the benchmarks with allocations, then the guarded/bare ratio of each face
bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS) | tee bench.out
	@awk '/^Benchmark.*\/(bare|guarded)/ { split($$1, p, "/"); sub(/-[0-9]+$$/, "", p[2]); ns[p[1] "/" p[2]] = $$3; fam[p[1]] = 1 } \
	  END { for (f in fam) if ((f "/bare") in ns && (f "/guarded") in ns) \
	    printf "%s: guarded/bare throughput = %.2f (target >= 0.9)\n", f, ns[f "/bare"] / ns[f "/guarded"] }' bench.out

## bench-region: import a generated region (2 million places, 5 million way segments) with the cairn
## command, then analyse a 30-day trip over it; prints the import's peak memory and CPU, and the analysis's CPU
bench-region:
	CAIRN_TEST_BENCH_REGION=1 $(GO) test -run '^$$' -bench BenchmarkRegion -benchtime 1x -timeout 30m ./planner

## bench-load: the real server under load (SQLite and PostgreSQL) beside bare huma and go-sdk servers;
## prints req/s, latency percentiles and server CPU per request (a few minutes; BENCHFLAGS=-h lists options)
bench-load:
	$(GO) run ./cmd/loadbench $(BENCHFLAGS)

## bench-scale: 1,000 users × 100 trips (and 10 × 100 for the growth) seeded into SQLite and PostgreSQL, then a
## Zipf-picked mix of reads and edits over both faces, on one server and on two replicas with Redis, beside bare
## huma and go-sdk; prints throughput, p50/p99, CPU per request and the targets (under 10 minutes; BENCHFLAGS=-h)
bench-scale:
	$(GO) run ./cmd/loadbench scale $(BENCHFLAGS)

## bench-uploads: GPX uploads on the real server (200,000 points, 30 MB, the densest file the limit admits, three
## and four at once): CPU per upload and peak resident memory above the idle server
bench-uploads:
	$(GO) run ./cmd/loadbench uploads $(BENCHFLAGS)

## lint: formatting, vet and staticcheck (the version pinned in go.mod's tool block)
lint:
	@files="$$(git ls-files --cached --others --exclude-standard '*.go')"; \
	  test -z "$$(gofmt -l $$files)" || { gofmt -l $$files; echo "gofmt needed"; exit 1; }
	$(GO) vet $(PKGS)
	$(GO) tool staticcheck $(PKGS)

## golden: rewrite every golden file from the code, then review the diff
golden:
	CAIRN_UPDATE_GOLDEN=1 $(GO) test -count=1 $(PKGS)
	@git status --short -- '*testdata*'

## migrate: apply pending migrations to the configured database
migrate:
	$(CAIRN) migrate

## guards: print the operation × guard matrix
guards:
	$(CAIRN) guards --format text

## build: build the cairn binary into ./bin
build:
	$(GO) build -o bin/cairn ./cmd/cairn
