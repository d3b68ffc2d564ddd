import { createHash } from 'node:crypto';

/** The md5 (hex) in the label, login and URL of the bench's item number `n`. */
export function benchHash(n: number): string {
  return createHash('md5').update(String(n)).digest('hex');
}
