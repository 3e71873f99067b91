#!/usr/bin/env bash
# make mutate: StrykerJS on src/domain and src/activities against their unit tests, then on the
# workflows' safety branches against the dev-server workflow tests (README, "Mutation testing").
#
# Each area runs as parts (PARTS in stryker.shared.mjs), each with its own reports and committed
# baseline (mutation/<part>-incremental.json.gz, its last result per mutant): Stryker's incremental
# mode re-tests only the mutants whose file or covering tests changed since, and a run stopped midway
# keeps the parts it finished. A baseline is rewritten when its results changed: commit it with the
# change. MUTATE_FULL=1 ignores the baselines; MUTATE_AREAS="domain activities-a-c" picks areas or
# parts. Every part runs; the script fails if any was under its break.
set -uo pipefail
cd "$(dirname "$0")/.."
# The parts of an area, as PARTS names them: "domain-core domain-plan …".
parts_of() { node --input-type=module -e "const { PARTS } = await import('./stryker.shared.mjs'); console.log(Object.keys(PARTS['$1']).map((p) => '$1-' + p).join(' '))"; }
areas=()
for area in ${MUTATE_AREAS:-domain activities workflows}; do
  case $area in
    domain | activities | workflows) read -ra parts <<< "$(parts_of "$area")"; areas+=("${parts[@]}") ;;
    *) areas+=("$area") ;;
  esac
done
mkdir -p reports/mutation mutation
failed=()
for area in "${areas[@]}"; do
  part=
  case $area in
    # An unknown part is refused by the config, naming the parts there are.
    domain-*) config=stryker.config.mjs; part=${area#domain-}; run=(npx stryker run) ;;
    activities-*) config=stryker.activities.config.mjs; part=${area#activities-}; run=(npx stryker run) ;;
    # Applied one at a time to a copy, against the part's dev-server tests (scripts/workflow-mutants.mjs).
    workflows-*)
      if node scripts/workflow-mutants.mjs "${area#workflows-}" ${MUTATE_FULL:+--all}; then :; else failed+=("$area"); fi
      continue ;;
    *) echo "mutate: unknown area '$area': domain, activities, workflows, or one of their parts ($(parts_of domain) $(parts_of activities) $(parts_of workflows))" >&2; exit 2 ;;
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
