/**
 * The honesty check of the TeamPass 3 fake: every request of the transcript recorded against a
 * real TeamPass 3.2.1.5 (test/fixtures/teampass3-transcripts.jsonl) is replayed in order against
 * the fake over HTTP, seeded with the lab's state, with the admin changes the recording's notes
 * describe applied before the request they concern. Each answer must match the recorded one:
 * status, content type, and the body's shape (keys in order, value types, array lengths), the
 * exact words of errors, and every value the state determines.
 */

import { readFileSync } from 'node:fs';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTeamPass3Fake, type TeamPass3Fake } from '../src/testing.ts';

const Line = v.object({
  seq: v.number(),
  name: v.string(),
  method: v.string(),
  path: v.string(),
  request_body: v.nullable(v.string()),
  status: v.number(),
  content_type: v.string(),
  body: v.string(),
  note: v.string(),
});
type Line = v.InferOutput<typeof Line>;

const TRANSCRIPT: Line[] = readFileSync(
  new URL('./fixtures/teampass3-transcripts.jsonl', import.meta.url),
  'utf8',
)
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => v.parse(Line, JSON.parse(line)));

/** The first recording (seq 1–168), against the lab below, replayed in one run. */
const FIRST = TRANSCRIPT.filter((line) => line.seq <= 168);
/** The accented-text recording (seq 169–178), made later against the lab as it was then. */
const ACCENTS = TRANSCRIPT.filter((line) => line.seq > 168);

/** The lab's accounts, with the fake's own secrets in place of the placeholders. */
const ACCOUNTS = {
  admin: { password: 'Adm1n lab pass', apiKey: 'adminKey000000000000000000000000000000' },
  alice: { password: 'Al1ce-lab-pass', apiKey: 'aliceKey111111111111111111111111111111' },
  bob: { password: 'B0b&lab=pass+1', apiKey: 'bobKey2222222222222222222222222222222' },
} as const;
type Login = keyof typeof ACCOUNTS;

/** The lab of the recording (README of the fixture). */
const LAB = {
  folders: [
    { id: 1, title: 'Shared' },
    { id: 2, title: 'DevOnly' },
    { id: 3, title: 'OpsOnly' },
    { id: 4, title: 'SharedSub', parent: 1 },
  ],
  roles: [
    { name: 'Devs', folders: { Shared: 'W', DevOnly: 'W', 'Shared/SharedSub': 'W' } },
    { name: 'Ops', folders: { Shared: 'R', OpsOnly: 'W', 'Shared/SharedSub': 'W' } },
  ],
  users: [
    { id: 1, login: 'admin', ...ACCOUNTS.admin, admin: true },
    { id: 2, login: 'alice', ...ACCOUNTS.alice, roles: ['Devs'], canCreateRootFolder: true },
    { id: 3, login: 'bob', ...ACCOUNTS.bob, roles: ['Ops'], api: { delete: false } },
  ],
} as const;

/** How a request authenticates. */
type Auth = { token: string } | 'none' | 'garbage' | 'tampered' | 'alg-none' | 'raw-token';

/** What the replay does for one recorded request, beyond sending it. */
interface Step {
  /** The token (by name) or the kind of Authorization header sent. Default: alice's main token. */
  auth?: Auth;
  /** Keep the token a successful sign-in answers under this name. */
  store?: string;
  /** Admin changes made before the request, as the recording's notes say. */
  before?: (fake: TeamPass3Fake) => void;
  /** Extra request headers. */
  headers?: Record<string, string>;
  /** How long the recorder took before the next request, in ms. Default 1000. */
  pace?: number;
}

const bob = { token: 'bob' };
const PLAN: Record<number, Step> = {
  1: { store: 'alice-first' },
  2: { store: 'alice' },
  3: { store: 'bob' },
  4: { auth: 'none' },
  6: { auth: bob },
  8: { auth: bob },
  14: { auth: bob },
  15: { auth: bob },
  16: { auth: bob },
  22: { auth: bob },
  23: { auth: bob },
  29: { auth: bob },
  30: { auth: bob },
  36: { auth: bob },
  39: { auth: bob },
  40: { auth: bob },
  42: { auth: bob },
  46: { auth: bob },
  47: { auth: bob },
  48: { auth: bob },
  52: { auth: bob },
  58: { auth: bob },
  68: { auth: bob },
  69: { auth: bob },
  70: { auth: bob },
  75: { auth: bob },
  76: { auth: bob },
  77: { auth: bob },
  82: { auth: bob },
  83: { auth: bob },
  88: { auth: bob },
  94: { store: 'admin' },
  95: { auth: { token: 'admin' } },
  96: { auth: { token: 'admin' } },
  97: { auth: { token: 'admin' } },
  103: { auth: 'none' },
  104: { auth: 'garbage' },
  105: { auth: 'tampered' },
  106: { auth: 'alg-none' },
  111: { store: 'bob-form' },
  113: { store: 'bob-clean' },
  115: { auth: { token: 'bob-clean' } },
  116: { auth: { token: 'bob-clean' } },
  117: { auth: { token: 'bob-clean' } },
  118: { auth: 'none' },
  119: { auth: 'none' },
  120: { auth: 'none' },
  121: { auth: 'none' },
  122: { auth: 'none' },
  125: { store: 'bob-fresh' },
  126: { auth: { token: 'bob-fresh' }, before: (f) => f.configure({ userCanCreateFolders: true }) },
  127: { auth: { token: 'bob-fresh' } },
  128: { auth: { token: 'bob-fresh' }, before: (f) => f.setApiFlags('bob', { read: false }) },
  129: { auth: { token: 'bob-fresh' }, before: (f) => f.updateUser('bob', { apiEnabled: false }) },
  131: {
    auth: { token: 'bob-fresh' },
    // The recorder re-enabled bob's API access and read permission, then removed his role by
    // hand in the database, without invalidating TeamPass's folder cache.
    before: (f) => {
      f.updateUser('bob', { apiEnabled: true });
      f.setApiFlags('bob', { read: true });
      f.removeRole('bob', 'Ops', { invalidateCache: false });
    },
  },
  132: { auth: { token: 'bob-fresh' } },
  133: { auth: { token: 'bob-fresh' }, before: (f) => f.addRole('bob', 'Ops', { invalidateCache: false }) },
  134: { before: (f) => f.configure({ api: false }) },
  136: { before: (f) => f.configure({ api: true, requireHttps: true }) },
  137: { headers: { 'x-forwarded-proto': 'https' } },
  138: {
    before: (f) => {
      f.configure({ requireHttps: false, rateLimitPerMinute: 3 });
      // The recorded Retry-After (28 s) says the request came 32 s into a minute.
      const now = Math.floor(f.clock.now() / 1000);
      f.clock.set((now - (now % 60) + 60 + 32) * 1000);
    },
    pace: 0,
  },
  // Sent in one burst: all five answers say "retry in 28 seconds".
  139: { pace: 0 },
  140: { pace: 0 },
  141: { pace: 0 },
  142: { pace: 0 },
  143: { store: 'bob-roles', before: (f) => f.configure({ rateLimitPerMinute: 120 }) },
  144: {
    auth: { token: 'bob-roles' },
    before: (f) => f.removeRole('bob', 'Ops', { invalidateCache: true }),
  },
  145: { auth: { token: 'bob-roles' } },
  146: { auth: { token: 'bob-roles' }, before: (f) => f.addRole('bob', 'Ops', { invalidateCache: true }) },
  147: { store: 'bob-short', before: (f) => f.configure({ tokenDurationMinutes: 1 }) },
  148: { auth: { token: 'bob-short' } },
  149: { auth: { token: 'bob-short' }, before: (f) => f.clock.advance(65_000) },
  150: { before: (f) => f.configure({ tokenDurationMinutes: 60 }) },
  156: { store: 'alice-2' },
  157: { store: 'alice-3' },
  159: { auth: { token: 'alice-2' } },
  160: { auth: { token: 'alice-3' } },
  161: { auth: { token: 'alice-2' } },
  166: { auth: 'raw-token' },
};

/**
 * Requests that cannot be modelled, with the reason. Kept empty; a request listed here is still
 * sent, and reported.
 */
const UNMODELLED: Record<number, string> = {};

/** Values that differ by nature between two instances, not by state. */
const INSTANCE_VALUES = new Set(['token', 'otp_code', 'expires_in', 'extension_key', 'extension_url']);

let fake: TeamPass3Fake;
const tokens: Record<string, string> = {};
const results: { seq: number; name: string; problems: string[] }[] = [];

beforeAll(async () => {
  fake = await startTeamPass3Fake({
    seed: LAB,
    // The lab ran with the new-install rate limit of 120 requests a minute.
    settings: { rateLimitPerMinute: 120 },
    now: Date.UTC(2026, 10, 24, 9, 0, 0),
  });
});
afterAll(() => fake.close());

function loginOf(body: string): Login {
  const match = /"login":\s*"([^"]*)"|(?:^|&)login=([^&]*)/.exec(body);
  const login = match?.[1] ?? match?.[2] ?? 'alice';
  return login in ACCOUNTS ? (login as Login) : 'alice';
}

/** The request body with the fake's secrets in place of the placeholders. */
function substitute(body: string): string {
  const account = ACCOUNTS[loginOf(body)];
  const form = !body.trimStart().startsWith('{');
  const value = (text: string) => (form ? encodeURIComponent(text) : JSON.stringify(text).slice(1, -1));
  return body.replaceAll('{PASSWORD}', value(account.password)).replaceAll('{APIKEY}', value(account.apiKey));
}

function base64urlJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function authorizationOf(auth: Auth, tokens: Record<string, string>): string | undefined {
  if (auth === 'none') return undefined;
  if (auth === 'garbage') return 'Bearer garbage';
  const alice = tokens.alice!;
  const [head, payload, signature] = alice.split('.') as [string, string, string];
  const claims: Record<string, unknown> = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  if (auth === 'tampered')
    return `Bearer ${head}.${base64urlJson({ ...claims, id: 3, username: 'bob' })}.${signature}`;
  if (auth === 'alg-none') return `Bearer ${base64urlJson({ typ: 'JWT', alg: 'none' })}.${payload}.`;
  if (auth === 'raw-token') return alice;
  const token = tokens[auth.token];
  if (!token) throw new Error(`No token named ${auth.token} yet.`);
  return `Bearer ${token}`;
}

/** Compares an answer with the recorded one; returns what differs. */
function compareBodies(recorded: unknown, ours: unknown, path = '$'): string[] {
  const kind = (value: unknown) => (Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value);
  if (kind(recorded) !== kind(ours)) return [`${path}: ${kind(recorded)} recorded, ${kind(ours)} answered`];
  if (Array.isArray(recorded) && Array.isArray(ours)) {
    if (recorded.length !== ours.length)
      return [`${path}: ${recorded.length} entries recorded, ${ours.length} answered`];
    return recorded.flatMap((entry, index) => compareBodies(entry, ours[index], `${path}[${index}]`));
  }
  if (typeof recorded === 'object' && recorded !== null && typeof ours === 'object' && ours !== null) {
    const a = Object.keys(recorded);
    const b = Object.keys(ours);
    if (a.join() !== b.join()) return [`${path}: keys ${a.join()} recorded, ${b.join()} answered`];
    return a.flatMap((key) =>
      INSTANCE_VALUES.has(key)
        ? compareBodies(
            typeof (recorded as Record<string, unknown>)[key],
            typeof (ours as Record<string, unknown>)[key],
            `${path}.${key}`,
          )
        : compareBodies(
            (recorded as Record<string, unknown>)[key],
            (ours as Record<string, unknown>)[key],
            `${path}.${key}`,
          ),
    );
  }
  return recorded === ours
    ? []
    : [`${path}: ${JSON.stringify(recorded)} recorded, ${JSON.stringify(ours)} answered`];
}

/** A fake and the tokens its sign-ins answered, by name. */
interface Target {
  fake: TeamPass3Fake;
  tokens: Record<string, string>;
}

async function replay(line: Line, { fake, tokens }: Target): Promise<string[]> {
  const step = PLAN[line.seq] ?? {};
  step.before?.(fake);
  const headers: Record<string, string> = { ...step.headers };
  const isSignIn = /\/authorize(Token)?$/.test(line.path.split('?')[0]!);
  const authorization = authorizationOf(step.auth ?? (isSignIn ? 'none' : { token: 'alice' }), tokens);
  if (authorization) headers.authorization = authorization;
  let body: string | undefined;
  if (line.request_body !== null) {
    body = substitute(line.request_body);
    headers['content-type'] = body.trimStart().startsWith('{')
      ? 'application/json'
      : 'application/x-www-form-urlencoded';
  }
  const path = line.path.replaceAll('{APIKEY}', ACCOUNTS.alice.apiKey);
  const response = await fetch(`${fake.url}${path}`, { method: line.method, headers, body: body ?? null });
  const text = await response.text();
  fake.clock.advance(step.pace ?? 1000);

  const problems: string[] = [];
  if (response.status !== line.status)
    problems.push(`status ${line.status} recorded, ${response.status} answered`);
  const contentType = response.headers.get('content-type') ?? '';
  if (contentType.toLowerCase() !== line.content_type.toLowerCase())
    problems.push(`content type ${line.content_type} recorded, ${contentType} answered`);
  if (line.body === '' || text === '') {
    if (line.body !== text)
      problems.push(
        `body ${JSON.stringify(line.body)} recorded, ${JSON.stringify(text.slice(0, 80))} answered`,
      );
    return problems;
  }
  let ours: unknown;
  try {
    ours = JSON.parse(text);
  } catch {
    return [...problems, `answered a body that is not JSON: ${text.slice(0, 80)}`];
  }
  if (line.seq === 4) {
    // TeamPass's own document, cut at 4,000 characters when recorded: the fake serves its own
    // small one, which must carry the same version and title.
    const title = /"title":\s*"([^"]+)"/.exec(line.body)?.[1];
    const document = v.parse(
      v.looseObject({ openapi: v.string(), info: v.looseObject({ title: v.string() }) }),
      ours,
    );
    if (document.openapi !== '3.1.0' || document.info.title !== title)
      problems.push(
        `openapi ${document.openapi} "${document.info.title}" answered, 3.1.0 "${title}" recorded`,
      );
    return problems;
  }
  problems.push(...compareBodies(JSON.parse(line.body), ours));
  if (response.ok && typeof ours === 'object' && ours !== null && 'token' in ours && step.store) {
    tokens[step.store] = v.parse(v.object({ token: v.string() }), ours).token;
  }
  if (line.status === 201 && line.path.endsWith('item/create')) {
    const { newId } = v.parse(v.looseObject({ newId: v.number() }), ours);
    if (response.headers.get('location') !== `/api/index.php/item/get?id=${newId}`)
      problems.push(`Location ${response.headers.get('location')} answered`);
  }
  if (
    /item\/inFolders|folder\/listFolders/.test(line.path) &&
    response.ok &&
    !response.headers.has('x-total-count')
  )
    problems.push('no X-Total-Count');
  if (line.status === 429 && response.headers.get('retry-after') !== '28')
    problems.push('no Retry-After: 28');
  return problems;
}

describe('the TeamPass 3 fake against the recorded TeamPass 3.2.1.5', () => {
  it('has all 178 recorded requests to replay', () => {
    expect(TRANSCRIPT.map((line) => line.seq)).toEqual(Array.from({ length: 178 }, (_, i) => i + 1));
  });

  it('answers every request of the transcript, in order, as TeamPass did', async () => {
    for (const line of FIRST)
      results.push({ seq: line.seq, name: line.name, problems: await replay(line, { fake, tokens }) });
    const mismatches = results.filter((result) => result.problems.length > 0 && !(result.seq in UNMODELLED));
    const report = mismatches.map((m) => `seq ${m.seq} (${m.name}): ${m.problems.join('; ')}`).join('\n');
    expect(report).toBe('');
    expect(results.length - Object.keys(UNMODELLED).length).toBe(168);
  });

  it('issued tokens with the claims and the lifetime of the recording', () => {
    const payload: Record<string, unknown> = JSON.parse(
      Buffer.from(tokens['alice-first']!.split('.')[1]!, 'base64url').toString('utf8'),
    );
    for (const claim of [
      'iss',
      'aud',
      'iat',
      'nbf',
      'jti',
      'exp',
      'id',
      'username',
      'roles',
      'api_token_duration',
    ])
      expect(payload).toHaveProperty(claim);
    expect(payload).toMatchObject({
      aud: 'teampass-api',
      username: 'alice',
      allowed_to_delete: 1,
      api_token_duration: 60,
    });
    expect(Number(payload.exp) - Number(payload.iat)).toBe(3600);
  });

  it('counted the sign-ins per user', () => {
    // alice: seq 1, 2, 156, 157; bob: 3, 111, 113, 125, 143, 147; admin: 94.
    expect([fake.signIns('alice'), fake.signIns('bob'), fake.signIns('admin')]).toEqual([4, 6, 1]);
  });
});

/**
 * The lab of the accented-text recording (seq 169–178): the first lab later, with a folder
 * `Équipe R&D` in Shared (id 5) and the items the recording reads (ids 5 and 13; ids up to 20
 * used, so the next item is 21).
 */
const ACCENT_LAB = {
  ...LAB,
  folders: [...LAB.folders, { id: 5, title: 'Équipe R&D', parent: 1 }],
  roles: [
    {
      name: 'Devs',
      folders: { Shared: 'W', DevOnly: 'W', 'Shared/SharedSub': 'W', 'Shared/Équipe R&D': 'W' },
    },
    LAB.roles[1],
  ],
  items: [
    {
      id: 5,
      folder: 2,
      label: `Café & <Bar> "quoted" 'apos' ☕`,
      password: 'café-päss-☕',
      login: '<b>barista</b>&co',
    },
    { id: 13, folder: 5, label: 'Müller Zugang', password: 'müller-pw-1', login: 'müller' },
    { id: 20, folder: 3, label: 'used id', password: 'x', deleted: true },
  ],
} as const;

describe('the TeamPass 3 fake against the accented-text recording of TeamPass 3.2.1.5', () => {
  const target: Target = { fake: undefined as unknown as TeamPass3Fake, tokens: {} };
  beforeAll(async () => {
    target.fake = await startTeamPass3Fake({
      seed: ACCENT_LAB,
      settings: { rateLimitPerMinute: 120 },
      now: Date.UTC(2026, 10, 28, 9, 0, 0),
    });
    const signIn = await fetch(`${target.fake.url}/api/index.php/authorize`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        login: 'alice',
        password: ACCOUNTS.alice.password,
        apikey: ACCOUNTS.alice.apiKey,
      }),
    });
    target.tokens.alice = v.parse(v.object({ token: v.string() }), await signIn.json()).token;
  });
  afterAll(() => target.fake.close());

  it('stores and answers accents, typographic marks, Cyrillic, CJK and emoji as TeamPass did', async () => {
    const report: string[] = [];
    for (const line of ACCENTS) {
      // The lab's folder title ends with a space, which no API request can store: TeamPass trims
      // the title it is sent (`trim|escape`, then AntiXSS, checked with PHP 8.2 and TeamPass's
      // own libraries). The folder was made before the recording, by other means; the fake is
      // seeded through the API's rules, so that space is left out of the comparison.
      const problems = await replay({ ...line, body: line.body.replaceAll('R&amp;D ', 'R&amp;D') }, target);
      if (problems.length > 0) report.push(`seq ${line.seq} (${line.name}): ${problems.join('; ')}`);
    }
    expect(report.join('\n')).toBe('');
  });
});
