import type { SimRandom } from './random';

/** A Coder API key as the CLI shows it: `<10-char id>-<22-char secret>`. */
export function sessionToken(random: SimRandom): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const part = (n: number): string => Array.from({ length: n }, () => random.pick(alphabet.split(''))).join('');
  return `${part(10)}-${part(22)}`;
}
