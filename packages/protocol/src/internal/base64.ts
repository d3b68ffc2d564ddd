/**
 * Portable base64 over bytes: no `Buffer`, no `atob`/`btoa` (which only take Latin-1), so the core
 * runs the same in Node, browsers and VS Code web workers.
 * Internal: shared by files of the package, exported by none of its entries.
 *
 * @module
 */

const STANDARD = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const URL_SAFE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Char code → 6-bit value; 255 marks a byte outside both alphabets. */
const DECODE = /* @__PURE__ */ (() => {
  const table = new Uint8Array(256).fill(255);
  for (let i = 0; i < 64; i++) {
    table[STANDARD.charCodeAt(i)] = i;
    table[URL_SAFE.charCodeAt(i)] = i;
  }
  return table;
})();

/** Pairs of output characters for every 12-bit value: halves the table look-ups on encode. */
function pairTable(alphabet: string): string[] {
  const pairs = new Array<string>(4096);
  for (let i = 0; i < 4096; i++) pairs[i] = alphabet[i >> 6]! + alphabet[i & 63]!;
  return pairs;
}

const pairCache: { standard?: string[]; urlSafe?: string[] } = {};

function pairsFor(urlSafe: boolean): string[] {
  const key = urlSafe ? 'urlSafe' : 'standard';
  const cached = pairCache[key];
  if (cached) return cached;
  const pairs = pairTable(urlSafe ? URL_SAFE : STANDARD);
  pairCache[key] = pairs;
  return pairs;
}

/**
 * Encodes bytes as base64.
 *
 * @param bytes The bytes to encode.
 * @param urlSafe Whether to use `-` and `_` in place of `+` and `/`.
 * @param pad Whether to append `=` padding.
 * @returns The base64 text.
 */
export function bytesToBase64(bytes: Uint8Array, urlSafe: boolean, pad: boolean): string {
  const alphabet = urlSafe ? URL_SAFE : STANDARD;
  const pairs = pairsFor(urlSafe);
  const full = bytes.length - (bytes.length % 3);
  const parts: string[] = [];
  let chunk = '';
  for (let i = 0; i < full; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    chunk += pairs[n >> 12]! + pairs[n & 4095]!;
    // Flush now and then: one huge rope string is slower to flatten than a join of chunks.
    if (chunk.length >= 16384) {
      parts.push(chunk);
      chunk = '';
    }
  }
  const rest = bytes.length - full;
  if (rest === 1) {
    const n = bytes[full]! << 16;
    chunk += alphabet[n >> 18]! + alphabet[(n >> 12) & 63]! + (pad ? '==' : '');
  } else if (rest === 2) {
    const n = (bytes[full]! << 16) | (bytes[full + 1]! << 8);
    chunk += alphabet[n >> 18]! + alphabet[(n >> 12) & 63]! + alphabet[(n >> 6) & 63]! + (pad ? '=' : '');
  }
  parts.push(chunk);
  return parts.length === 1 ? parts[0]! : parts.join('');
}

/**
 * Decodes base64 in either alphabet (`+/` or `-_`, mixed too), with or without `=` padding.
 *
 * @param text The base64 text.
 * @returns The bytes, or `undefined` when the text is not valid base64.
 */
export function base64ToBytes(text: string): Uint8Array | undefined {
  let end = text.length;
  if (end > 0 && text.charCodeAt(end - 1) === 61) end--;
  if (end > 0 && text.charCodeAt(end - 1) === 61) end--;
  // Padding, when present, must complete the last quantum exactly.
  if (end !== text.length && text.length % 4 !== 0) return undefined;
  const rest = end % 4;
  if (rest === 1) return undefined;
  const out = new Uint8Array(((end - rest) / 4) * 3 + (rest === 0 ? 0 : rest - 1));
  let o = 0;
  let i = 0;
  const full = end - rest;
  for (; i < full; i += 4) {
    const a = DECODE[text.charCodeAt(i)]!;
    const b = DECODE[text.charCodeAt(i + 1)]!;
    const c = DECODE[text.charCodeAt(i + 2)]!;
    const d = DECODE[text.charCodeAt(i + 3)]!;
    if ((a | b | c | d) === 255) return undefined;
    const n = (a << 18) | (b << 12) | (c << 6) | d;
    out[o++] = n >> 16;
    out[o++] = (n >> 8) & 255;
    out[o++] = n & 255;
  }
  if (rest > 0) {
    const a = DECODE[text.charCodeAt(i)]!;
    const b = DECODE[text.charCodeAt(i + 1)]!;
    const c = rest === 3 ? DECODE[text.charCodeAt(i + 2)]! : 0;
    if ((a | b | c) === 255) return undefined;
    const n = (a << 18) | (b << 12) | (c << 6);
    out[o++] = n >> 16;
    if (rest === 3) out[o++] = (n >> 8) & 255;
  }
  return out;
}
