#!/usr/bin/env bash
# make mutate: StrykerJS on src/domain and src/activities against their unit tests, then on the
# workflows' safety branches against the dev-server workflow tests (README, "Mutation testing").
#
# Each area starts from its committed baseline (mutation/<area>-incremental.json.gz, the last whole
# run's result per mutant): Stryker's incremental mode re-tests only the mutants whose file or
# covering tests changed since, so a fresh clone's run takes minutes, not the hour and a half a
# whole run takes on 2 cores. MUTATE_FULL=1 ignores the baselines and tests every mutant.
# MUTATE_AREAS="domain activities" picks areas. Each unit area runs as parts (PARTS in
# stryker.shared.mjs: domain-core, -plan, -hcl, -state, -scanner; activities-a-c, -d-p, -q-z), each with its
# own reports and baseline, so a run stopped midway keeps the parts it finished; "domain-plan" runs one. The baselines are rewritten by
# each run: commit them with the change that moved them. Every area runs; the script fails if any
# was under its break.
set -uo pipefail
cd "$(dirname "$0")/.."
areas=()
for area in ${MUTATE_AREAS:-domain activities workflows}; do
  case $area in
    domain) areas+=(domain-core domain-plan domain-hcl domain-state domain-scanner) ;;
    activities) areas+=(activities-a-c activities-d-p activities-q-z) ;;
    *) areas+=("$area") ;;
  esac
done
mkdir -p reports/mutation mutation
failed=()
for area in "${areas[@]}"; do
  part=
  case $area in
    domain-core | domain-plan | domain-hcl | domain-state | domain-scanner) config=stryker.config.mjs; part=${area#domain-}; run=(npx stryker run) ;;
    activities-a-c | activities-d-p | activities-q-z) config=stryker.activities.config.mjs; part=${area#activities-}; run=(npx stryker run) ;;
    workflows) config=stryker.workflows.config.mjs; run=(node -r @swc-node/register scripts/with-dev-server.ts npx stryker run) ;;
    *) echo "mutate: unknown area '$area' (domain, activities, workflows, or a part: domain-core, domain-plan, domain-hcl, domain-state, domain-scanner, activities-a-c, activities-d-p, activities-q-z)" >&2; exit 2 ;;
  esac
  baseline=mutation/$area-incremental.json.gz
  working=reports/mutation/$area-incremental.json
  force=()
  if [ -n "${MUTATE_FULL:-}" ]; then
    force=(--force)
    echo "mutate: $area: every mutant (MUTATE_FULL)"
  elif [ -f "$baseline" ]; then
    # The baseline wins over an older working copy unless the working copy is newer (a run since).
    if [ ! -f "$working" ] || [ "$baseline" -nt "$working" ]; then gunzip -c "$baseline" > "$working"; fi
    echo "mutate: $area: from the baseline $baseline: only mutants whose code or tests changed since are tested (MUTATE_FULL=1 tests all)"
  else
    echo "mutate: $area: no baseline yet: every mutant is tested"
  fi
  if WSMIGRATE_MUTATE_PART=$part "${run[@]}" "$config" "${force[@]}"; then :; else failed+=("$area"); fi
  if [ -f "$working" ]; then node scripts/mutation-baseline.mjs "$working" "$baseline"; fi
done
node scripts/mutation-score.mjs "${areas[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "mutate: FAILED: ${failed[*]} (under its thresholds.break, or the run itself failed: see above)" >&2
  exit 1
fi
