import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  CONFORMANCE_CHECKS,
  type ConformanceFinding,
  formatFindings,
  runConformance,
} from '../src/conformance.ts';
import { type ReplayServer, startReplayServer } from '../src/testing/teampass-replay-server.ts';
import { startTeamPass3Fake, type TeamPass3Fake } from '../src/testing.ts';

const KEY = 'confK3yA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q';
const run = promisify(execFile);

let server: ReplayServer;

beforeAll(async () => {
  server = await startReplayServer({ apiKey: KEY });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

function outcomes(findings: ConformanceFinding[]) {
  return Object.fromEntries(findings.map((f) => [f.check, [f.outcome, f.knownTeamPassLimit]]));
}

describe('runConformance on the TeamPass replay server', () => {
  it('passes the main flow on a default TeamPass (3-byte tables, no file endpoints), with findings', async () => {
    server.threeByteTables = true;
    server.fileEndpoints = false;
    const lines: string[] = [];
    const report = await runConformance({
      baseUrl: server.url,
      apiKey: KEY,
      login: 'alice',
      onResult: (result) => lines.push(`${result.ok}`),
      onFinding: (finding) => lines.push(finding.check),
    });
    expect(report.results.filter((result) => result.ok === false)).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.results.filter((result) => result.ok === undefined).map((r) => r.operation)).toEqual([
      'add/file',
      'read/listfiles',
      'read/files',
      'read/otp',
    ]);
    expect(report.results.find((r) => r.endpoint === 'addFile')?.detail).toBe(
      'skipped: the server has no file endpoints',
    );
    expect(outcomes(report.findings)).toEqual({
      'four-byte-text': ['refuses', true],
      files: ['absent', true],
      'full-text-search': ['refuses', true],
      'key-header': ['refuses', true],
      'other-users': ['supported', false],
      'multi-id-reads': ['supported', false],
      'url-lookup': ['not-run', false],
      'tags-scope': ['not-run', false],
    });
    expect(report.findings.find((f) => f.check === 'url-lookup')?.detail).toBe(
      'not run: the server has no URL lookup',
    );
    const fourByte = report.findings.find((f) => f.check === 'four-byte-text');
    expect(fourByte?.detail).toMatch(
      /^add\/item with an emoji in the label answered invalid_response \(HTTP 200\): "Incorrect string value/,
    );
    const search = report.findings.find((f) => f.check === 'full-text-search');
    expect(search?.detail).toMatch(
      /405\): "Item definition not numeric"; the core's searchItems found it \(read the searched folders and matched there\)$/,
    );
    expect(JSON.stringify(report.findings)).not.toContain('undefined');
    expect(report.capabilities?.server).toBe('teampass-compatible');
    expect(JSON.stringify(report)).not.toContain(KEY);
    // One line per operation and one per check, run or not.
    expect(lines).toHaveLength(15 + CONFORMANCE_CHECKS.length);
    const summary = formatFindings(report);
    expect(summary).toHaveLength(CONFORMANCE_CHECKS.length + 1);
    expect(summary.at(-1)).toBe(
      '12 passed, 0 failed, 4 skipped; known TeamPass limits: four-byte-text refuses, files absent, full-text-search refuses, key-header refuses; checks not run: url-lookup, tags-scope',
    );
    expect(summary[0]).toMatch(/^REFUSES\s+four-byte-text\s+add\/item .* \(known TeamPass limit\)$/);
    // Nothing left behind.
    expect(
      [...server.items.values()].filter((item) => item.label.startsWith('conf ') && !item.deleted),
    ).toEqual([]);
  });

  it('reports four-byte text and files as supported where the server has them', async () => {
    const report = await runConformance({ baseUrl: server.url, apiKey: KEY, login: 'alice' });
    // Every operation but read/otp: TeamPass 2 has no one-time codes.
    expect(report.results.filter((result) => result.ok !== true).map((r) => r.operation)).toEqual([
      'read/otp',
    ]);
    expect(outcomes(report.findings)).toMatchObject({
      'four-byte-text': ['supported', false],
      files: ['supported', false],
    });
  });

  it('reports a server that mangles emoji, and leaves out files when told', async () => {
    server.mangleFourByte = true;
    const report = await runConformance({ baseUrl: server.url, apiKey: KEY, login: 'alice', files: false });
    expect(report.ok).toBe(true);
    expect(report.results.filter((r) => r.ok === undefined)).toHaveLength(4);
    expect(report.results.find((r) => r.endpoint === 'addFile')?.detail).toBe(
      'not run (file operations disabled)',
    );
    expect(report.findings.find((f) => f.check === 'files')).toMatchObject({
      outcome: 'not-run',
      detail: 'not run: file operations disabled',
    });
    const mangled = report.findings.find((f) => f.check === 'four-byte-text');
    expect(mangled).toMatchObject({ outcome: 'mangles', knownTeamPassLimit: true });
    expect(mangled?.detail).toMatch(/^an emoji label came back as "conf \w+ emoji \?\?\?\? \?\?\?\?"$/);
  });

  it('formats findings that are not known TeamPass limits apart', () => {
    const failed = formatFindings({
      results: [],
      findings: [{ check: 'key-header', outcome: 'failed', detail: 'y', knownTeamPassLimit: false }],
    });
    expect(failed).toEqual([
      'FAILED    key-header        y',
      '0 passed, 0 failed, 0 skipped; other findings: key-header failed',
    ]);
  });

  it('stops at the first refused key, with a line for every operation and check', async () => {
    const before = server.requests.length;
    const report = await runConformance({
      baseUrl: server.url,
      apiKey: `${KEY.slice(0, -1)}x`,
      login: 'alice',
    });
    expect(report.ok).toBe(false);
    expect(report.results.filter((r) => r.ok === false).map((r) => r.operation)).toEqual(['add/folder']);
    // The operations the server does not offer say so (TeamPass 2 has no one-time codes); every
    // other one after the refusal says it was not run for the refusal.
    const lacking = report.results.filter((r) => r.detail.startsWith('not run (the server has no'));
    expect(lacking.map((r) => r.operation)).toEqual(['read/otp']);
    expect(
      report.results.filter((r) => r.detail.startsWith('not run: the server refused the sign-in or the key')),
    ).toHaveLength(report.results.length - 1 - lacking.length);
    expect(report.findings.map((f) => [f.check, f.outcome])).toEqual(
      CONFORMANCE_CHECKS.map((check) => [check, 'not-run']),
    );
    // The identification, then one keyed request.
    expect(server.requests.slice(before).filter((r) => r.url.includes('apikey='))).toHaveLength(1);
  });

  it('fails the run when a check fails (a server error on the header request)', async () => {
    server.fault({
      match: (r) => r.url.startsWith('/api/index.php/read/items/') && !r.url.includes('apikey='),
      reply: { status: 503, body: '' },
    });
    const report = await runConformance({ baseUrl: server.url, apiKey: KEY, login: 'alice' });
    expect(report.findings.find((f) => f.check === 'key-header')).toMatchObject({
      outcome: 'failed',
      knownTeamPassLimit: false,
    });
    expect(report.ok).toBe(false);
  });
});

describe('vaultline-conformance (the CLI)', () => {
  it('prints one line per operation and finding, names the known limits, exits 0', async () => {
    server.threeByteTables = true;
    server.fileEndpoints = false;
    const cli = fileURLToPath(new URL('../src/conformance-cli.ts', import.meta.url));
    const { stdout, stderr } = await run(
      process.execPath,
      [cli, '--base-url', server.url, '--login', 'alice'],
      {
        env: { ...process.env, VAULTLINE_API_KEY: KEY },
      },
    );
    expect(stderr).toBe('');
    expect(stdout).not.toContain(KEY);
    expect(stdout).toContain(
      'server: teampass-compatible; key in the query; search restricted; files unknown',
    );
    expect(stdout).toMatch(/^SKIP {2}add\/file {10}skipped: the server has no file endpoints$/m);
    expect(stdout).toMatch(/^ABSENT {4}files .*\(known TeamPass limit\)$/m);
    expect(stdout.trim().split('\n').at(-1)).toMatch(
      /^12 passed, 0 failed, 4 skipped; known TeamPass limits: /,
    );
  });
});

describe('runConformance on TeamPass 3 (the fake)', () => {
  const ALICE = {
    login: 'alice',
    password: 'Al1ce conf&pw',
    apiKey: 'aliceConfKeyAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  };
  let fake: TeamPass3Fake;

  beforeAll(async () => {
    fake = await startTeamPass3Fake({
      seed: {
        folders: [{ title: 'Shared' }],
        roles: [{ name: 'Devs', folders: { Shared: 'W' } }],
        users: [{ ...ALICE, roles: ['Devs'], canCreateRootFolder: true }],
      },
    });
  });
  afterAll(() => fake.close());

  it('runs the main flow through the same client, with findings for what TeamPass 3 lacks', async () => {
    const report = await runConformance({ baseUrl: fake.url, ...ALICE });
    expect(report.results.filter((result) => result.ok === false)).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.capabilities).toMatchObject({
      dialect: 'teampass3',
      credentials: 'password',
      files: false,
    });
    expect(report.results.filter((result) => result.ok === undefined).map((r) => r.operation)).toEqual([
      'add/file',
      'read/listfiles',
      'read/files',
    ]);
    expect(outcomes(report.findings)).toEqual({
      'four-byte-text': ['supported', false],
      files: ['absent', true],
      'full-text-search': ['supported', false],
      'other-users': ['absent', true],
      'key-header': ['not-run', false],
      'multi-id-reads': ['absent', true],
      'url-lookup': ['supported', false],
      'tags-scope': ['leaks', true],
    });
    // The capability says what the check found: TeamPass 3 stores emoji as sent.
    expect(report.capabilities?.fourByteText).toBe(true);
    expect(report.findings.find((f) => f.check === 'multi-id-reads')?.detail).toBe(
      'read/items of 2 ids took 2 requests: the server reads one id per call (the client sends them a few at a time)',
    );
    expect(formatFindings(report).at(-1)).toBe(
      '13 passed, 0 failed, 3 skipped; known TeamPass limits: files absent, other-users absent, multi-id-reads absent, tags-scope leaks; checks not run: key-header',
    );
    // Nothing left behind, and the session was signed out.
    expect(fake.items().filter((item) => item.deletedAt === undefined)).toEqual([]);
    expect(fake.folders().filter((folder) => folder.title.startsWith('vaultline-conformance'))).toEqual([]);
    expect(fake.sessions('alice').every((session) => session.revokedAt !== undefined)).toBe(true);
    expect(fake.signIns('alice')).toBe(1);
    const text = JSON.stringify(report);
    for (const secret of [ALICE.password, ALICE.apiKey, ...fake.tokens()]) expect(text).not.toContain(secret);
  });

  it('runs from the CLI with the password from the environment', async () => {
    const cli = fileURLToPath(new URL('../src/conformance-cli.ts', import.meta.url));
    const { stdout, stderr } = await run(
      process.execPath,
      [cli, '--base-url', fake.url, '--login', 'alice'],
      {
        env: { ...process.env, VAULTLINE_API_KEY: ALICE.apiKey, VAULTLINE_PASSWORD: ALICE.password },
      },
    );
    expect(stderr).toBe('');
    for (const secret of [ALICE.password, ALICE.apiKey]) expect(stdout).not.toContain(secret);
    expect(stdout).toContain('server: teampass3; sign-in password; search full; files false');
    expect(stdout).toMatch(/^ABSENT {4}other-users .*\(known TeamPass limit\)$/m);
    expect(stdout).toMatch(/^LEAKS {5}tags-scope .*\(known TeamPass limit\)$/m);
    expect(stdout.trim().split('\n').at(-1)).toMatch(
      /^13 passed, 0 failed, 3 skipped; known TeamPass limits: /,
    );
  });

  it('prints a line for every check after a failed read/items, and says why each was not run', async () => {
    // item/get (read/items on TeamPass 3) fails; everything else reaches the fake.
    const failingReads: typeof fetch = async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      return url.includes('/item/get?')
        ? new Response('', { status: 500 })
        : fetch(input instanceof Request ? input : url, init);
    };
    const report = await runConformance({ baseUrl: fake.url, ...ALICE, fetch: failingReads });
    expect(report.ok).toBe(false);
    expect(report.results.find((r) => r.endpoint === 'readItems')?.ok).toBe(false);
    expect(report.findings.map((f) => f.check)).toEqual([...CONFORMANCE_CHECKS]);
    const notRun = Object.fromEntries(
      report.findings.filter((f) => f.outcome === 'not-run').map((f) => [f.check, f.detail]),
    );
    for (const check of ['four-byte-text', 'full-text-search', 'multi-id-reads', 'url-lookup'])
      expect(notRun[check]).toBe('not run: needs update/item, which did not pass');
    const lines = formatFindings(report);
    for (const check of CONFORMANCE_CHECKS)
      expect(lines.filter((line) => line.split(/\s+/)[1] === check)).toHaveLength(1);
    expect(lines.find((line) => line.includes('four-byte-text'))).toBe(
      'NOT-RUN   four-byte-text    not run: needs update/item, which did not pass',
    );
    expect(fake.items().filter((item) => item.deletedAt === undefined)).toEqual([]);
  });

  it('stops after one refused sign-in, and still prints a line per operation and check', async () => {
    fake.resetCounters();
    const signIns = () => fake.requests.filter((r) => r.url.includes('/authorize')).length;
    const before = signIns();
    const cli = fileURLToPath(new URL('../src/conformance-cli.ts', import.meta.url));
    const failure = await run(process.execPath, [cli, '--base-url', fake.url, '--login', 'alice'], {
      env: {
        ...process.env,
        VAULTLINE_API_KEY: 'wrongKeyZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ',
        VAULTLINE_PASSWORD: ALICE.password,
      },
    }).then(
      () => undefined,
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(failure?.code).toBe(1);
    const stdout = failure!.stdout;
    expect(signIns() - before).toBe(1);
    expect(stdout.match(/^FAIL /gm)).toHaveLength(1);
    expect(stdout).toMatch(/^FAIL {2}add\/folder /m);
    expect(stdout).toMatch(
      /^SKIP {2}read\/items {8}not run: the server refused the sign-in or the key at add\/folder$/m,
    );
    for (const check of CONFORMANCE_CHECKS)
      expect(stdout).toMatch(
        new RegExp(`^NOT-RUN {3}${check} +not run: the server refused the sign-in`, 'm'),
      );
    expect(stdout).not.toContain('undefined');
    expect(stdout).not.toContain(ALICE.password);
  });
});
