import { randomBytes } from 'node:crypto';

/**
 * Source of ids, names and fault draws. With a seed every run of the simulator hands out the same
 * ids in the same order, so a failing test can be replayed; without one it uses crypto randomness.
 */
export class SimRandom {
  private state: number;
  private readonly seeded: boolean;

  constructor(seed?: number) {
    this.seeded = seed !== undefined;
    this.state = (seed ?? 0) >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    if (!this.seeded) return randomBytes(4).readUInt32BE(0) / 2 ** 32;
    // mulberry32: tiny, fast and good enough for test data.
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  }

  int(maxExclusive: number): number {
    return Math.floor(this.next() * maxExclusive);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }

  hex(bytes: number): string {
    let out = '';
    for (let i = 0; i < bytes; i++) out += this.int(256).toString(16).padStart(2, '0');
    return out;
  }

  /** An RFC 4122 version-4 UUID. */
  uuid(): string {
    const h = this.hex(16).split('');
    h[12] = '4';
    h[16] = '89ab'[this.int(4)] as string;
    const s = h.join('');
    return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
  }
}
