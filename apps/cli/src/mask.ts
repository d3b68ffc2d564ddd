/**
 * Masking resolved values in a child's output, as bytes: a value split across chunks is still
 * masked, because the bytes that could begin a value are held back until the next chunk (or the
 * end) tells. Nothing that could be part of a value is written early, and what is still held back
 * at the end (the child stopped in the middle of a value) is masked, never written as it is.
 *
 * @module
 */

import { Transform, type TransformCallback } from 'node:stream';
import { MASK, MIN_MASK_LENGTH } from './constants.ts';

/** Lines of a multi-line value at least this long are masked on their own too. */
const MIN_LINE_LENGTH = 8;

/**
 * The byte strings to mask: each value, and each long line of a multi-line value (a private key
 * printed line by line), longest first; short values are left out.
 *
 * @param values The values.
 * @returns The needles.
 */
export function maskNeedles(values: Iterable<string>): Buffer[] {
  const texts = new Set<string>();
  for (const value of values) {
    if (value.length >= MIN_MASK_LENGTH) texts.add(value);
    if (value.includes('\n')) {
      for (const line of value.split(/\r?\n/)) if (line.trim().length >= MIN_LINE_LENGTH) texts.add(line);
    }
  }
  return [...texts].map((text) => Buffer.from(text, 'utf8')).sort((a, b) => b.length - a.length);
}

/**
 * Finds needles in one piece of data, earliest then longest first. Each needle's next position is
 * searched once and again only when a match has passed it, so the data is scanned about once per
 * needle, however many matches it holds.
 */
function matcher(haystack: Buffer, needles: readonly Buffer[]) {
  const next = needles.map((needle) => haystack.indexOf(needle));
  return (from: number): { at: number; length: number } | undefined => {
    let best: { at: number; length: number } | undefined;
    for (let i = 0; i < needles.length; i++) {
      if (next[i]! >= 0 && next[i]! < from) next[i] = haystack.indexOf(needles[i]!, from);
      const at = next[i]!;
      const length = needles[i]!.length;
      if (at >= 0 && (best === undefined || at < best.at || (at === best.at && length > best.length)))
        best = { at, length };
    }
    return best;
  };
}

/** How many bytes at the end of `tail` could begin a needle (compared in place, no copies). */
function heldBack(tail: Buffer, needles: readonly Buffer[]): number {
  let longest = 0;
  for (const needle of needles) {
    const first = needle[0];
    const max = Math.min(needle.length - 1, tail.length);
    for (let k = max; k > longest; k--) {
      const start = tail.length - k;
      if (tail[start] === first && tail.compare(needle, 0, k, start, tail.length) === 0) {
        longest = k;
        break;
      }
    }
  }
  return longest;
}

/**
 * A stream that replaces every needle with {@link MASK}. Output that ends with the start of a
 * needle ends with {@link MASK} instead: the child may have stopped while writing the value.
 *
 * @param needles The byte strings to mask (from {@link maskNeedles}).
 * @returns The transform.
 */
export function createMasker(needles: readonly Buffer[]): Transform {
  const mask = Buffer.from(MASK);
  const longest = Math.max(0, ...needles.map((needle) => needle.length));
  let pending = Buffer.alloc(0);
  function process(chunk: Buffer, final: boolean): Buffer {
    const data = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    const out: Buffer[] = [];
    let from = 0;
    let deferred = false;
    const nextMatch = matcher(data, needles);
    for (let match = nextMatch(0); match; match = nextMatch(from)) {
      // A value may still be coming that starts at or before this match and runs past the data
      // (`ref` within `ref   `, or `all` within ` all   `): wait for the next chunk from where it
      // starts, as masking the whole output at once would, the longest value winning.
      if (!final && match.at + longest > data.length) {
        const start = data.length - heldBack(data.subarray(from), needles);
        if (start <= match.at) {
          out.push(data.subarray(from, start));
          from = start;
          deferred = true;
          break;
        }
      }
      out.push(data.subarray(from, match.at), mask);
      from = match.at + match.length;
    }
    const rest = data.subarray(from);
    const keep = deferred ? rest.length : heldBack(rest, needles);
    out.push(rest.subarray(0, rest.length - keep));
    if (final) {
      if (keep > 0) out.push(mask);
      pending = Buffer.alloc(0);
    } else {
      pending = Buffer.from(rest.subarray(rest.length - keep));
    }
    return Buffer.concat(out);
  }
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      const out = process(chunk, false);
      callback(null, out.length > 0 ? out : undefined);
    },
    flush(callback: TransformCallback) {
      const out = process(Buffer.alloc(0), true);
      callback(null, out.length > 0 ? out : undefined);
    },
  });
}
