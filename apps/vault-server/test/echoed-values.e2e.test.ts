import { encodeValue } from '@vaultline/protocol/wire';
import { describe, expect, it } from 'vitest';
import { runCli, tempDirs } from './support/cli.ts';
import { rawRequest } from './support/helpers.ts';
import { vaultForSuite } from './support/vault-for-suite.ts';

// A value that tries to reorder what a reader sees (U+202E, U+2066), to hide text (U+200B), to break
// a line (U+0085, U+2028) and to drive a terminal (ESC): none of it JSON escapes.
const HOSTILE = '\u202ebbx_alice\u2066\u200b\u0085\u2028\u001b[2J';
/** Characters an echoed value must not carry (the JSON escape of ESC is text, not a control). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ufeff]/;

const b64 = (values: readonly string[]) => values.map(encodeValue).join(';');

/** Every request whose error echoes a value the client sent, with what the error says. */
const ECHOES: readonly { what: string; path: string; err: RegExp }[] = [
  {
    what: 'read/userpw login',
    path: `read/userpw/${encodeURIComponent(HOSTILE)}`,
    err: /^User does not exist/,
  },
  {
    what: 'read/userfolders login',
    path: `read/userfolders/${encodeURIComponent(HOSTILE)}`,
    err: /^User does not exist/,
  },
  {
    what: 'add/item folder_id',
    path: `add/item/${b64(['label', 'pw', 'd', HOSTILE, '', '', '', '', ''])}`,
    err: /^Expected folder_id/,
  },
  {
    what: 'add/item any_one_can_modify',
    path: `add/item/${b64(['label', 'pw', 'd', '1', '', '', '', '', HOSTILE])}`,
    err: /^Expected any_one_can_modify/,
  },
  {
    what: 'add/folder complexity_level',
    path: `add/folder/${b64(['t', HOSTILE, '0', '0', '0'])}`,
    err: /^Expected complexity_level/,
  },
  {
    what: 'add/folder parent_id',
    path: `add/folder/${b64(['t', '0', HOSTILE, '0', '0'])}`,
    err: /^Expected parent_id/,
  },
  {
    what: 'add/folder renewal_period',
    path: `add/folder/${b64(['t', '0', '0', HOSTILE, '0'])}`,
    err: /^Expected renewal_period/,
  },
  {
    what: 'add/folder personal',
    path: `add/folder/${b64(['t', '0', '0', '0', HOSTILE])}`,
    err: /^Expected personal/,
  },
  {
    what: 'update/folder complexity_level',
    path: `update/folder/1/${b64(['t', HOSTILE, '0'])}`,
    err: /^Expected complexity_level/,
  },
];

describe('values the client sent, echoed in error texts', () => {
  const suite = vaultForSuite('pglite');

  /** Expects an echo that shows where the hostile characters were, none of them left. */
  function expectNeutral(err: string, echoed: RegExp): void {
    expect(err).toMatch(echoed);
    expect(err).not.toMatch(UNSAFE);
    expect(err).toContain('\ufffdbbx_alice\ufffd\ufffd');
  }

  it.each(ECHOES)('neutralises control and bidi characters in the $what', async ({ path, err }) => {
    const answer = await rawRequest(suite.vault.url, `/api/index.php/${path}?apikey=${suite.vault.adminKey}`);
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).toBeLessThan(500);
    expectNeutral((JSON.parse(answer.body) as { err: string }).err, err);
  });

  it('neutralises them in the item_id field of add/file', async () => {
    const form = [
      '--b',
      'content-disposition: form-data; name="item_id"',
      '',
      HOSTILE,
      '--b',
      'content-disposition: form-data; name="file"; filename="x.txt"',
      '',
      'abc',
      '--b--',
      '',
    ].join('\r\n');
    const answer = await rawRequest(
      suite.vault.url,
      `/api/index.php/add/file?apikey=${suite.vault.adminKey}`,
      {
        method: 'POST',
        headers: { 'content-type': 'multipart/form-data; boundary=b' },
        body: Buffer.from(form),
      },
    );
    expect(answer.status).toBe(400);
    expectNeutral((JSON.parse(answer.body) as { err: string }).err, /^Expected the field item_id/);
  });
});

/**
 * Characters that show as nothing (the soft hyphen, the word joiner and invisible operators, a tag
 * character, the Hangul filler, the combining grapheme joiner): each one hides in a text, so
 * neither an error text nor a stored name may carry one.
 */
const INVISIBLE = 'a\u00adb\u2060c\u2064d\u{e0041}e\u3164f\u034fg';
/** The same as one rule for every surface sees it: each a format character or a filler. */
const UNSEEN = /\p{Cf}|\u034f|\u115f|\u1160|\u3164|\uffa0/u;

describe('invisible characters, echoed or stored', () => {
  const suite = vaultForSuite('pglite');

  it('shows each one as U+FFFD in an echoed error text', async () => {
    const answer = await rawRequest(
      suite.vault.url,
      `/api/index.php/read/userfolders/${encodeURIComponent(INVISIBLE)}?apikey=${suite.vault.adminKey}`,
    );
    expect(answer.status).toBe(404);
    const { err } = JSON.parse(answer.body) as { err: string };
    expect(err).toMatch(/^User does not exist/);
    expect(err).not.toMatch(UNSEEN);
    expect(err).toContain('a\ufffdb\ufffdc\ufffdd\ufffde\ufffdf\ufffdg');
  });

  it('keeps none of them in an attachment name', async () => {
    const folder = await suite.admin.addFolder({ folder: { title: 'Invisible names' } });
    const item = await suite.admin.addItem({
      item: { label: 'invisible names', password: suite.pw('inv-pw-1'), folderId: folder.id },
    });
    const form = [
      '--b',
      'content-disposition: form-data; name="item_id"',
      '',
      String(item.id),
      '--b',
      `content-disposition: form-data; name="file"; filename="${INVISIBLE}.txt"`,
      '',
      'abc',
      '--b--',
      '',
    ].join('\r\n');
    const answer = await rawRequest(
      suite.vault.url,
      `/api/index.php/add/file?apikey=${suite.vault.adminKey}`,
      {
        method: 'POST',
        headers: { 'content-type': 'multipart/form-data; boundary=b' },
        body: Buffer.from(form),
      },
    );
    expect(answer.status).toBe(200);
    const [file] = await suite.admin.listFiles({ itemId: item.id });
    expect(file?.name).toBe('abcdefg.txt');
  });
});

describe('values the operator typed, echoed by vaultline-server', () => {
  const tempDir = tempDirs('vaultline-echo-');

  it('neutralises control and bidi characters in the error line', async () => {
    const env = { VAULTLINE_DATA_DIR: await tempDir() };
    const result = await runCli(['users', 'assign', '--login', HOSTILE, '--role', 'ops'], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: User does not exist/);
    expect(result.stderr.trimEnd()).not.toMatch(UNSAFE);
    expect(result.stderr).toContain('\ufffdbbx_alice\ufffd\ufffd');
  });

  it('neutralises them in what the command line parser echoes', async () => {
    const result = await runCli(['keys', 'create', '--label', 'x', `--${HOSTILE}`]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown option '--\ufffdbbx_alice\ufffd\ufffd/);
    for (const line of result.stderr.split('\n')) expect(line).not.toMatch(UNSAFE);
  });
});
