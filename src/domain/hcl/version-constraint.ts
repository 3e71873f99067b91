/**
 * Terraform version constraints (`required_version`, `required_providers` versions): comma-separated
 * parts with =, !=, >, >=, <, <=, ~> (Terraform's syntax), read just enough to ask whether any
 * version from a floor upwards satisfies them.
 */
type Version = readonly [number, number, number];
interface Part {
  readonly op: string;
  readonly v: Version;
  readonly digits: number;
}

/** Whether some version >= `floor` satisfies `constraint`. An unreadable constraint answers true: Terraform judges it. */
export function admitsVersionAtLeast(constraint: string, floor: Version): boolean {
  const parts = constraint
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p): Part | undefined => {
      const m = /^(=|!=|>=|<=|>|<|~>)?\s*v?(\d+(?:\.\d+){0,2})/.exec(p);
      return m ? { op: m[1] ?? '=', v: parseVersion(m[2]), digits: m[2].split('.').length } : undefined;
    });
  if (parts.some((p) => p === undefined)) return true;
  const read = parts as Part[];
  // The set a constraint allows is a union of ranges that start at the floor or at one of its own
  // bounds (or just above one): checking those points is enough.
  const candidates: Version[] = [floor, bump(floor, 2)];
  for (const p of read) candidates.push(p.v, bump(p.v, 2), bump(p.v, 1), bump(p.v, 0));
  return candidates.some((c) => cmp(c, floor) >= 0 && read.every((p) => satisfies(c, p)));
}

function parseVersion(s: string): Version {
  const n = s.split('.').map(Number);
  return [n[0] ?? 0, n[1] ?? 0, n[2] ?? 0];
}

/** The next version at position `at` (0 major, 1 minor, 2 patch), lower positions reset. */
function bump(v: Version, at: 0 | 1 | 2): Version {
  return at === 0 ? [v[0] + 1, 0, 0] : at === 1 ? [v[0], v[1] + 1, 0] : [v[0], v[1], v[2] + 1];
}

function cmp(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

function satisfies(v: Version, c: Part): boolean {
  const d = cmp(v, c.v);
  switch (c.op) {
    case '=':
      return d === 0;
    case '!=':
      return d !== 0;
    case '>':
      return d > 0;
    case '>=':
      return d >= 0;
    case '<':
      return d < 0;
    case '<=':
      return d <= 0;
    default: {
      // ~> 1.6 allows 1.x >= 1.6; ~> 1.6.0 allows 1.6.x.
      if (d < 0) return false;
      return c.digits >= 3 ? v[0] === c.v[0] && v[1] === c.v[1] : v[0] === c.v[0];
    }
  }
}
