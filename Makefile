# The two commands a new user needs: `make demo` and `make test`. Each installs what it needs first.
SHELL := /bin/bash
NPM_STAMP := node_modules/.package-lock.json

.PHONY: demo test deps tools tools-real-stack build typecheck lint unit bench bench-reliability mutate clean

demo: deps build
	node dist/cli/main.js demo $(DEMO_FLAGS)

test: deps tools-real-stack
	npx tsc --noEmit -p tsconfig.json
	npx eslint src test bench
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
	npx eslint src test bench

# Pure unit tests only, no Temporal server: quick feedback while editing.
unit: $(NPM_STAMP)
	WSMIGRATE_UNIT_ONLY=1 npx jest test/domain

bench: deps build
	node -r @swc-node/register bench/state-rewrite.ts
	node -r @swc-node/register bench/reliability/run.ts
	node -r @swc-node/register bench/fleet.ts
	WSMIGRATE_FLEET_SCALE=1 node scripts/run-tests.js test/workflows/fleet-history.test.ts
	node -r @swc-node/register bench/cli-startup.ts

# Bad inputs refused, secrets found (test/chaos on a real dev server); writes bench/reliability/RESULTS.md.
bench-reliability: deps
	node -r @swc-node/register bench/reliability/run.ts

# Mutation testing (StrykerJS; not in CI: slow). Domain + activities against their unit tests, then
# the workflow files' safety branches against the dev-server workflow tests. Reports: reports/mutation/.
mutate: $(NPM_STAMP) tools
	npx stryker run stryker.config.mjs
	node -r @swc-node/register scripts/with-dev-server.ts npx stryker run stryker.workflows.config.mjs

clean:
	rm -rf dist coverage .wsmigrate
