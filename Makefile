# The two commands a fresh clone needs: `make demo` and `make test`. Everything else is set up here.
SHELL := /bin/bash
export PATH := $(CURDIR)/.tools/node_modules/.bin:$(CURDIR)/node_modules/.bin:$(PATH)
NODE_SRC := node --conditions=@jitterbug/source
NODE22 := $(CURDIR)/.tools/node_modules/node22/bin/node

.PHONY: all setup install demo test typecheck lint build check-packages pack docs bench bench-counts clean

all: test

setup:
	@sh scripts/bootstrap.sh

node_modules/.modules.yaml: package.json pnpm-workspace.yaml pnpm-lock.yaml .pnpmfile.cjs $(wildcard packages/*/package.json) examples/package.json | setup
	@pnpm install --frozen-lockfile --reporter=silent
	@touch $@

install: setup node_modules/.modules.yaml

demo: install
	@$(NODE_SRC) examples/demo.ts

typecheck: install
	@tsc -p tsconfig.json

lint: install
	@biome check .

build: install
	@pnpm run --silent build

check-packages: install
	@bash scripts/check-packages.sh

# The packages packed and installed into a fresh project as a user would (scripts/pack-install.sh),
# with .tools on PATH for its pnpm; built first, as the script expects.
pack: build
	@bash scripts/pack-install.sh

# The API reference of every published package's entry points, from their TSDoc, in out/reference/
# (test/docs/reference.ts; make test fails on an export or an option without TSDoc).
docs: install
	@node test/docs/build-reference.ts

# typecheck, lint and check-packages run inside test.sh, which counts a failing one and still ends
# with the `N passed, N failed, N skipped` line.
test: install
	@bash scripts/test.sh

# The benchmarks (not part of `make test`; they need valgrind): bench/NOTES.md. `bench-counts` runs
# only the instruction-count ratchet, which `bench` includes.
bench: install
	@pnpm run --silent bench

bench-counts: install
	@$(NODE_SRC) bench/ratchet.ts

clean:
	rm -rf node_modules packages/*/node_modules packages/*/dist examples/node_modules out
