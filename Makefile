# The two commands a new user needs: `make demo` and `make test`. Each installs what it needs first.
SHELL := /bin/bash
NPM_STAMP := node_modules/.package-lock.json

# Node.js 24 (the current LTS, the one the image ships) first on PATH for every recipe: the bootstrap
# installs it into the tools cache once (it says so on stderr) and prints its bin folder.
NODE_BIN := $(shell bash scripts/bootstrap-tools.sh --node-bin-dir)
export PATH := $(NODE_BIN):$(PATH)

.PHONY: demo test deps tools tools-real-stack build typecheck lint unit bench bench-reliability record-histories mutate clean

demo: deps build
	node dist/cli/main.js demo $(DEMO_FLAGS)

test: deps tools-real-stack
	npx tsc --noEmit -p tsconfig.json
	npx eslint src test bench scripts/*.ts
	npx depcruise src --config .dependency-cruiser.cjs --ignore-known --output-type err
	node scripts/run-tests.js

deps: $(NPM_STAMP) tools

$(NPM_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund

tools:
	bash scripts/bootstrap-tools.sh

# Also kube-apiserver, etcd and the kubernetes/coder Terraform providers, for the real-provisioner
# tests: ~20 min the first time on 2 cores, then cached (a second run rebuilds nothing).
tools-real-stack:
	bash scripts/bootstrap-tools.sh --real-stack

build: $(NPM_STAMP)
	npx tsc -p tsconfig.build.json
	node dist/worker/write-workflow-bundle.js

typecheck: $(NPM_STAMP)
	npx tsc --noEmit -p tsconfig.json

lint: $(NPM_STAMP)
	npx eslint src test bench scripts/*.ts
	npx depcruise src --config .dependency-cruiser.cjs --ignore-known --output-type err

# Pure unit tests only, no Temporal server: quick feedback while editing.
unit: $(NPM_STAMP)
	WSMIGRATE_UNIT_ONLY=1 npx jest test/domain

bench: deps build
	node -r @swc-node/register bench/state-rewrite.ts
	node -r @swc-node/register bench/reliability/run.ts
	node -r @swc-node/register bench/fleet.ts
	node -r @swc-node/register bench/fleet-paced.ts
	WSMIGRATE_FLEET_SCALE=1 node scripts/run-tests.js test/workflows/fleet-history.test.ts
	node -r @swc-node/register bench/cli-startup.ts

# Bad inputs refused, secrets found (test/chaos on a real dev server); writes bench/reliability/RESULTS.md.
bench-reliability: deps
	node -r @swc-node/register bench/reliability/run.ts

# A release's replay fixtures (test/workflows/fixtures/histories): see README, "Upgrading the worker".
record-histories: deps
	node -r @swc-node/register scripts/record-histories.ts

# Mutation testing (StrykerJS; not in CI: slow). Domain + activities against their unit tests, then
# the workflow files' safety branches against the dev-server workflow tests, each from its committed
# baseline (mutation/): only mutants whose code or tests changed are re-tested. MUTATE_FULL=1 tests
# every mutant; MUTATE_AREAS="domain" picks areas. Reports: reports/mutation/.
mutate: $(NPM_STAMP) tools
	bash scripts/mutate.sh

clean:
	rm -rf dist coverage .wsmigrate
