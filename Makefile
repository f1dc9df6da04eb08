# convbench: prove CUDA convolution kernels correct and measure them, with go test.
#
#   make test      every test (GPU tests skip with a reason when there is no GPU),
#                  then counts of passed, failed and skipped tests and why they skipped
#   make test-long every test at full depth: every random case of the property suite
#                  (no time bound), and the suite on every tuned setting on a GPU host
#   make bench     the default sweep: GPU variants if a GPU is there, else the CPU ones;
#                  raw output under results/local/data/<gpu>/, its report under
#                  results/local/report/ (README.md, and index.html to open in a
#                  browser, your runs first) and the filter gallery, rendered by the
#                  fastest variants here, in its gallery/ (git ignores results/local/);
#                  BASELINE=cpu-naive: the variant its speed-ups compare with
#   make publish   copy the runs under results/local/data/ into the committed
#                  results/data/ and rebuild results/report/; refuses (exit 2)
#                  to overwrite a file results/data/ holds unless FORCE=1
#   make vet       go vet, staticcheck and gofmt (make test runs it first)
#   make report    rebuild results/report/ from the committed raw data (offline):
#                  README.md, its plots and the same report as a web page, index.html
#                  with report.css and report.js; the gallery it links is left as it
#                  is (go run ./cmd/gallery renders it)
#   make compare OLD=a.txt NEW=b.txt  time medians with 90% intervals and significance, cases paired across runs and hosts
#                  (go run ./benchmarks/cmd/compare -col variant FILE: variant against variant in one run)
#   make gpu-bins  test binaries, the report, gallery, sweep, tune, ncusum and gpurun commands for a GPU host without Go, into .gpu/
#   make gpu-test  run those binaries (on the GPU host, from the repo root);
#                  .gpu/gpurun OUTDIR STAGE... runs them stage by stage and keeps raw logs
#                  (.gpu/gpurun OUTDIR release: the release check)
#   make fleet-submit FLEET='-partitions h100,l40s -wait -- -sweep default -count 6'
#                  the sweep (or -tests, the GPU test run) on every target through Slurm
#   make fleet-gather  the fleet's runs into results/local/data/ and its cross-GPU report

GO      ?= go
export CGO_ENABLED = 0
SWEEP   ?= default
COUNT   ?= 6
# Each result line samples its case until its median's 95% confidence interval is
# within NOISE percent, or MAXTIME passes (see the benchmarks package).
NOISE   ?= 1
MAXTIME ?= 2s
# The variant the summary's and the report's speed-ups compare with; empty
# for the default, the reference where a case has it, else the slowest.
BASELINE ?=
PKGS    := ./...
# A user's runs and their report; git ignores this folder.
LOCAL   := results/local
# Packages that have tests, for gpu-bins: NAME=path.
TESTPKGS := convolve:./convolve testimage:./convolve/testimage refimpl:./refimpl kernels:./gpu/kernels cudabind:./cudabind nvrtc:./cudabind/nvrtc devfacts:./cudabind/devfacts variants:./gpu/variants cufft:./cudabind/cufft cudnn:./cudabind/cudnn autovariant:./gpu/auto gpuslab:./gpu/gpuslab userkernel:./gpu/userkernel examplekernels:./examples/kernels properties:./properties benchmarks:./benchmarks results:./results tune:./tune

.PHONY: test test-long bench publish report compare vet fmt gpu-bins gpu-test fleet-submit fleet-gather clean

test: vet
	$(GO) run ./cmd/testsummary $(PKGS)

test-long: vet
	CONVBENCH_TEST_LONG=1 $(GO) run ./cmd/testsummary -timeout 60m $(PKGS)

# staticcheck is a tool of go.mod: its version is pinned there and in go.sum.
STATICCHECK ?= $(GO) tool staticcheck

# vet also type-checks the module for Windows and macOS: it builds there
# (CGO_ENABLED=0), the CUDA libraries then reported unavailable.
vet:
	$(GO) vet $(PKGS)
	GOOS=windows CGO_ENABLED=0 $(GO) vet $(PKGS)
	GOOS=darwin CGO_ENABLED=0 $(GO) vet $(PKGS)
	$(STATICCHECK) $(PKGS)
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }

fmt:
	gofmt -w $$(git ls-files '*.go')

bench:
	$(GO) run ./benchmarks/cmd/sweep -sweep=$(SWEEP) -count=$(COUNT) -noise=$(NOISE) -max-time=$(MAXTIME) -data=$(LOCAL)/data -report $(if $(BASELINE),-baseline=$(BASELINE))
	$(GO) run ./cmd/gallery -data $(LOCAL)/data -out $(LOCAL)/report/gallery

# publish refuses to overwrite a file results/data/ already holds: it lists
# the clashes and exits 2, unless FORCE=1.
publish:
	@test -d $(LOCAL)/data || { echo "nothing to publish: no runs under $(LOCAL)/data (make bench writes them)"; exit 2; }
	@if [ "$(FORCE)" != 1 ]; then \
	  clash=$$(cd $(LOCAL)/data && find . -type f | sort | while IFS= read -r f; do \
	    if [ -e "$(CURDIR)/results/data/$$f" ]; then echo "  results/data/$${f#./}"; fi; done); \
	  if [ -n "$$clash" ]; then \
	    echo "publish: these files are already in results/data/ and would be overwritten:"; \
	    echo "$$clash"; \
	    echo "publish: move the new runs aside, or run make publish FORCE=1 to overwrite them"; \
	    exit 2; \
	  fi; \
	fi
	cp -R $(LOCAL)/data/. results/data/
	$(MAKE) report

report:
	$(GO) run ./results/cmd/report

compare:
	@test -n "$(OLD)" -a -n "$(NEW)" || { echo "usage: make compare OLD=file NEW=file"; exit 2; }
	$(GO) run ./benchmarks/cmd/compare $(OLD) $(NEW)

gpu-bins:
	@mkdir -p .gpu
	@echo "$$(git rev-parse HEAD)$$(git diff --quiet HEAD -- . ':!results' || echo ' (with uncommitted changes)')" > .gpu/COMMIT
	@for p in $(TESTPKGS); do name=$${p%%:*}; dir=$${p#*:}; \
	  if ls $$dir/*_test.go >/dev/null 2>&1; then \
	    echo "$(GO) test -c -ldflags=-s -o .gpu/$$name.test $$dir"; $(GO) test -c -ldflags=-s -o .gpu/$$name.test $$dir || exit 1; fi; done
	$(GO) build -ldflags=-s -o .gpu/report ./results/cmd/report
	$(GO) build -ldflags=-s -o .gpu/gallery ./cmd/gallery
	$(GO) build -ldflags=-s -o .gpu/sweep ./benchmarks/cmd/sweep
	$(GO) build -ldflags=-s -o .gpu/tune ./tune/cmd/tune
	$(GO) build -ldflags=-s -o .gpu/crossover ./results/cmd/crossover
	$(GO) build -ldflags=-s -o .gpu/ncusum ./results/cmd/ncusum
	$(GO) build -ldflags=-s -o .gpu/fleet ./fleet/cmd/fleet
	$(GO) build -ldflags=-s -o .gpu/gpurun ./cmd/gpurun

fleet-submit: gpu-bins
	$(GO) run ./fleet/cmd/fleet submit $(FLEET)

fleet-gather:
	$(GO) run ./fleet/cmd/fleet gather

gpu-test:
	@for p in $(TESTPKGS); do name=$${p%%:*}; dir=$${p#*:}; \
	  if [ -x .gpu/$$name.test ]; then (cd $$dir && $(CURDIR)/.gpu/$$name.test -test.v $(GPUTESTFLAGS)) || exit 1; fi; done

clean:
	rm -rf .gpu
