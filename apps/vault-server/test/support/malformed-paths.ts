import { encodeValue } from '@vaultline/protocol/wire';

/** A small seeded PRNG (mulberry32): the same paths on every run. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BAD_IDS = [
  '',
  'abc',
  '-1',
  '0',
  '00',
  '1.5',
  '1.0',
  '+3',
  '1e3',
  '0x10',
  '99999999999999999999',
  '9007199254740993',
  '%EF%BC%91%EF%BC%92',
  '%31',
  '%00',
  '1%00',
  '..',
  '.',
  '%2e%2e',
  '%2E%2E%2F',
  "1'",
  "1'%20OR%20'1'='1",
  '1%20OR%201=1',
  '1);DROP%20TABLE%20items;--',
  '1/**/',
  '%C3%A9',
  '%F0%9F%94%91',
  '%',
  '%ZZ',
  '\u00e9',
  '\u00ff\u00fe',
  'NaN',
  'Infinity',
  'null',
  '[1]',
  '{"id":1}',
  '1,2',
  '1|2',
  '%3B',
  '1%3B2',
];

const SQL = [
  "' OR '1'='1",
  "'; DROP TABLE items; --",
  '1 UNION SELECT password FROM items',
  "admin'--",
  '$1',
  "\\'; SELECT pg_sleep(1); --",
];

const HOSTILE_TEXT = ['..', '../..', '%00', '\u0000', '😀', 'Zürich', '<script>', ...SQL];

function pick<T>(rand: () => number, list: readonly T[]): T {
  return list[Math.floor(rand() * list.length)]!;
}

function int(rand: () => number, min: number, max: number): number {
  return min + Math.floor(rand() * (max - min + 1));
}

function b64(text: string): string {
  return encodeValue(text);
}

/** One invalid id: from the list, or a number with a defect. */
function badId(rand: () => number): string {
  const n = int(rand, 0, 1e7);
  const kind = int(rand, 0, 2);
  if (kind === 0) return pick(rand, BAD_IDS);
  if (kind === 1)
    return `${n}${pick(
      rand,
      ['.0', 'e1', '%00', "'", 'x', '%20', '-', '..', '%2F', '\u00e9', ' ', '#'].map((x) =>
        x.replace(' ', '%20').replace('#', '%23'),
      ),
    )}`;
  return `${pick(rand, ['-', '+', '%2B', 'x', '0x', '..', '%00', "'"])}${n}`;
}

/** A `;`-list of ids of which at least one is invalid. */
function badIdList(rand: () => number): string {
  const kind = int(rand, 0, 4);
  if (kind === 0) return ';'.repeat(int(rand, 1, 3000));
  if (kind === 1) return '9'.repeat(int(rand, 17, 3000));
  const parts: string[] = [];
  const count = int(rand, 1, 6);
  const badAt = int(rand, 0, count - 1);
  for (let i = 0; i < count; i++) parts.push(i === badAt ? badId(rand) : String(int(rand, 1, 100_000)));
  return parts.join(';');
}

function randomText(rand: () => number): string {
  return rand() < 0.3 ? pick(rand, HOSTILE_TEXT) : `v${int(rand, 0, 1e6)}`;
}

/** Nine item values with at least one defect. */
function badItemValues(rand: () => number): string {
  const kind = int(rand, 0, 5);
  if (kind === 0) {
    let count = int(rand, 0, 20);
    if (count === 9) count = 10;
    return Array.from({ length: count }, () => b64(randomText(rand))).join(';');
  }
  if (kind === 1) return ';'.repeat(int(rand, 1, 2000));
  const values = ['label', 'pw', 'desc', '1', 'login', 'e@x', 'u', 't', '0'].map(b64);
  values[0] = b64(`label ${int(rand, 0, 1e6)}`);
  const slot = int(rand, 0, 8);
  if (kind === 2)
    values[slot] = pick(rand, ['!!!!', 'a', 'abcde', '%00', '..', 'a=b', '====', '*', '%ZZ', '\u00e9']);
  else if (kind === 3)
    values[3] = b64(pick(rand, ['abc', '-1', '0', '1.5', '', ' ', "1' OR 1=1", '99999999999999999999']));
  else if (kind === 4) values[slot] = Buffer.from([0xff, 0xfe, 0xfd]).toString('base64url');
  else values[8] = b64(pick(rand, ['2', 'yes', 'true', '-1']));
  return values.join(';');
}

/** Five or three folder values with at least one defect, in blob or per-value form. */
function badFolderValues(rand: () => number, count: 5 | 3): string {
  const kind = int(rand, 0, 4);
  if (kind === 0) return pick(rand, ['!!!!', 'a', '%00', '..', '%ZZ', '\u00e9', '*']);
  if (kind === 1) {
    let n = int(rand, 0, 9);
    if (n === count) n = count + 1;
    const joined = Array.from({ length: n }, () => randomText(rand).replace(/;/g, ',')).join(';');
    return rand() < 0.5 ? b64(joined) : joined.split(';').map(b64).join(';');
  }
  const title = `Title ${int(rand, 0, 1e6)}`;
  const values = count === 5 ? [title, '0', '0', '0', '0'] : [title, '0', '0'];
  if (kind === 2) values[1] = pick(rand, ['33', '100', '-1', 'abc', '1.5', '']);
  else if (kind === 3) values[count === 5 ? 3 : 2] = pick(rand, ['abc', '-1', '99999999999', '1e3']);
  else if (count === 5) values[4] = pick(rand, ['2', 'yes', '-1']);
  else values[0] = pick(rand, ['', '   ', 'x'.repeat(300), '\u0000']);
  const joined = values.join(';');
  return rand() < 0.5 ? b64(joined) : values.map(b64).join(';');
}

function badLogin(rand: () => number): string {
  return pick(rand, [
    '%00',
    'a%00b',
    '%ZZ',
    '%',
    `nobody-${int(rand, 0, 1e6)}`,
    `%00${int(rand, 0, 1e6)}`,
    `${int(rand, 0, 1e6)}%ZZ`,
    "x'%20OR%20'1'='1",
    '%27%3B%20DROP%20TABLE%20users%3B--',
    '%F0%9F%98%80',
    '\u00e9\u00e8',
    '..',
    '.',
    'x'.repeat(int(rand, 101, 3000)),
    '%E2%80%AE',
    '%C0%AF',
  ]);
}

/** One malformed request: method, path (raw) and whether the key is good. */
export interface MalformedRequest {
  method: 'GET' | 'POST';
  path: string;
}

/**
 * Generates malformed request paths over every operation of the API.
 *
 * @param count How many.
 * @param apiKey The key to put in the query (the paths must reach the decoders).
 */
export function malformedRequests(count: number, apiKey: string, seed = 20_261_121): MalformedRequest[] {
  const rand = prng(seed);
  const out: MalformedRequest[] = [];
  const builders: (() => string)[] = [
    () => `add/item/${badItemValues(rand)}`,
    () => `update/item/${pick(rand, ['1', '2', '3'])}/${badItemValues(rand)}`,
    () => `update/item/${badId(rand)}/${['l', 'p', '', '1', '', '', '', '', '0'].map(b64).join(';')}`,
    () => `delete/item/${badIdList(rand)}`,
    () => `add/folder/${badFolderValues(rand, 5)}`,
    () => `update/folder/${pick(rand, ['1', '2'])}/${badFolderValues(rand, 3)}`,
    () => `update/folder/${badId(rand)}/${b64('T;0;0')}`,
    () => `delete/folder/${badIdList(rand)}`,
    () => `read/folder/${badIdList(rand)}`,
    () => `read/items/${badIdList(rand)}`,
    () => `read/userpw/${badLogin(rand)}`,
    () => `read/userfolders/${badLogin(rand)}`,
    () => `read/listfiles/${badId(rand)}`,
    () => `read/files/${badId(rand)}`,
    () => `find/item/${badIdList(rand)}/${encodeURIComponent(pick(rand, SQL))}`,
    () => `find/item/1/${pick(rand, ['%00', '%ZZ', 'x'.repeat(int(rand, 101, 2000)), '%'])}`,
    () =>
      pick(rand, [
        'read/items/1/',
        'read//items/1',
        'read/items/1/../../delete/item/1',
        'read/items/..%2F..%2Fdelete%2Fitem%2F1',
        'READ/ITEMS/1',
        'read/itemz/1',
        'read/items',
        'add/item',
        'add/file',
        'delete/item/1/2',
        '',
        '..',
        '%2e%2e/%2e%2e/etc/passwd',
        'read/items/1%2F2',
        `read/items/${'1;'.repeat(int(rand, 1, 100))}`,
        'find/item/1',
      ]),
  ];
  const seen = new Set<string>();
  for (let i = 0; out.length < count && i < count * 50; i++) {
    const path = builders[i % builders.length]!();
    const prefix = rand() < 0.8 ? '/api/index.php/' : '/api/';
    const query =
      rand() < 0.97 ? `?apikey=${apiKey}` : pick(rand, ['', '?apikey=', '?x=1', `?apikey=${apiKey}x`]);
    const method = path.startsWith('add/file') && rand() < 0.5 ? 'POST' : 'GET';
    const full = prefix + path + query;
    if (seen.has(`${method} ${full}`)) continue;
    seen.add(`${method} ${full}`);
    out.push({ method, path: full });
  }
  return out;
}
