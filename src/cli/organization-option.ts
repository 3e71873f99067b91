import { Option } from 'commander';

/**
 * `--org`, read as the Coder CLI reads it (`--org`, else `CODER_ORGANIZATION`: cli/root.go), and
 * else "coder", the name Coder gives the organization it creates first. A wrong name changes
 * nothing: the run's first read finds no template there and says so, naming the organization.
 */
export function organizationOption(): Option {
  return new Option('--org <organization>', 'Coder organization name').env('CODER_ORGANIZATION').default('coder');
}
