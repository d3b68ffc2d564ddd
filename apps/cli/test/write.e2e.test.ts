import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EXIT, estimateBits, requiredBits } from '@vaultline/protocol';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { completionScript } from '../src/completion.ts';
import { readEnvironment } from '../src/env.ts';
import { processOutput } from '../src/output.ts';
import { createProgram } from '../src/program.ts';
import { type CliOptions, leaks, recordingCli, runInTerminal, tempHome } from './support/cli.ts';
import { type SeededVault, startSeededVault } from './support/seed.ts';
import { type SeededTeamPass3, startSeededTeamPass3, USERS } from './support/teampass3.ts';
import { startsTimeout } from './support/timing.ts';

// A test here starts at most four processes unless it says how many (test/support/timing.ts).
vi.setConfig({ testTimeout: startsTimeout(4) });

let seeded: SeededVault;
let tp3: SeededTeamPass3;
let home: { dir: string; cleanup: () => Promise<void> };
/** A folder with the strongest rule, where alice may write. */
let strong: number;
/** Every result, with the secrets it was asked to print: scanned for leaks at the end. */
/** Passwords the tests wrote: secrets too. */
const written: string[] = [];

beforeAll(async () => {
  [seeded, tp3, home] = await Promise.all([startSeededVault(), startSeededTeamPass3(), tempHome()]);
  strong = (await seeded.admin.folders.create({ title: 'Strong', complexityLevel: 90, parentId: 0 })).id;
  await seeded.vault.admin.grant('dev', strong, 'W');
});
afterAll(async () => {
  await seeded?.vault.close();
  await tp3?.fake.close();
  await home?.cleanup();
});

function asAlice(): Record<string, string> {
  return { VAULTLINE_URL: seeded.vault.url, VAULTLINE_API_KEY: seeded.aliceKey, VAULTLINE_LOGIN: 'alice' };
}

const { cli, runs: outputs } = recordingCli(() => home.dir, asAlice);

const id = (label: string) => seeded.items[label]!;

async function labelsIn(folderId: number): Promise<string[]> {
  return (await seeded.admin.items.list(folderId).all()).map((item) => item.label);
}

describe('writing with the CLI against the Vaultline server', () => {
  it('has generated --help for ls, item create|edit|delete and generate, and completion knows them', () => {
    const program = createProgram({ env: readEnvironment({}), output: processOutput() });
    const names = program.commands.map((command) => command.name());
    expect(names).toEqual(expect.arrayContaining(['ls', 'item', 'generate', 'find']));
    const item = program.commands.find((command) => command.name() === 'item')!;
    expect(item.commands.map((command) => command.name())).toEqual(['create', 'edit', 'delete']);
    for (const sub of item.commands) {
      const help = sub.helpInformation();
      expect(help).toContain(`Usage: vaultline item ${sub.name()}`);
      expect(help).toContain('--yes');
      expect(help).toContain('--json');
    }
    const create = item.commands[0]!;
    // Passwords come from stdin, a file, the generator or a prompt: no option takes one as its value.
    expect(create.options.map((option) => option.long)).toEqual(
      expect.arrayContaining(['--password-stdin', '--password-file', '--generate']),
    );
    expect(create.options.some((option) => option.long === '--password')).toBe(false);
    const find = program.commands.find((command) => command.name() === 'find')!;
    expect(find.helpInformation()).toContain('--tag <tag>');
    expect(find.helpInformation()).toContain('--url <url>');
    const generate = program.commands.find((command) => command.name() === 'generate')!;
    expect(generate.helpInformation()).toContain('--folder <folder>');
    const bash = completionScript(program, 'bash');
    expect(bash).toContain('    item)');
    expect(bash).toMatch(/compgen -W 'create edit delete'/);
    expect(bash).toContain('--password-stdin');
    expect(bash).toContain('    ls)');
    expect(bash).toContain('    generate)');
    expect(completionScript(program, 'fish')).toContain('-a generate');
    expect(completionScript(program, 'zsh')).toContain("'item:");
  });

  describe('ls', () => {
    it("lists the login's folders with its right, and a folder's items by path or id, never a password", async () => {
      const folders = await cli(['ls', '--json']);
      expect(folders.code).toBe(0);
      const list = JSON.parse(folders.stdout) as {
        id: number;
        path: string;
        right: string;
        complexityLevel?: number;
      }[];
      expect(list).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            id: seeded.folders.databases,
            path: 'Engineering/Databases',
            right: 'W',
          }),
          expect.objectContaining({ id: seeded.folders.shared, path: 'Shared', right: 'R' }),
          expect.objectContaining({ id: strong, path: 'Strong', complexityLevel: 90 }),
        ]),
      );
      expect(list.some((folder) => folder.path === 'Ops')).toBe(false);
      const byPath = await cli(['ls', 'engineering/DATABASES', '--json']);
      expect(byPath.code).toBe(0);
      const { items } = JSON.parse(byPath.stdout) as {
        items: { id: number; label: string; reference: string }[];
      };
      expect(items).toEqual([
        expect.objectContaining({
          id: id('prod db'),
          label: 'prod db',
          reference: `vaultline://${id('prod db')}/password`,
        }),
      ]);
      const unicode = await cli(['ls', String(seeded.folders.shared)]);
      expect(unicode.code).toBe(0);
      expect(unicode.stdout).toContain('Café ☕ 100% / wifi');
    });

    it('says clearly when a folder is unknown, not the login’s, or malformed', async () => {
      const unknown = await cli(['ls', 'Nowhere/At all']);
      expect(unknown.code).toBe(EXIT.reference);
      expect(unknown.stderr).toContain('No folder "Nowhere/At all" among the folders alice may access');
      const others = await cli(['ls', String(seeded.folders.ops)]);
      expect(others.code).toBe(EXIT.reference);
      expect(others.stderr).toContain(
        `No folder with id ${seeded.folders.ops} among the folders alice may access`,
      );
      const malformed = await cli(['ls', '0', '--json']);
      expect(malformed.code).toBe(EXIT.usage);
      expect(JSON.parse(malformed.stderr).error.code).toBe('invalid_id');
    });
  });

  describe('generate', () => {
    it("makes a password for a folder's rule, and refuses a length too short for it", async () => {
      const free = await cli(['generate', '--length', '12', '--no-symbols'], { allowed: [] });
      expect(free.code).toBe(0);
      expect(free.stdout).toMatch(/^[A-Za-z0-9]{12}\n$/);
      const ruled = await cli(['generate', '--folder', 'Strong', '--json']);
      expect(ruled.code).toBe(0);
      const made = JSON.parse(ruled.stdout) as {
        password: string;
        complexityLevel: number;
        folderId: number;
      };
      expect(made).toMatchObject({ complexityLevel: 90, folderId: strong });
      expect(estimateBits(made.password)).toBeGreaterThanOrEqual(requiredBits(90));
      const weak = await cli(['generate', '--folder', String(strong), '--length', '8']);
      expect(weak.code).toBe(EXIT.usage);
      expect(weak.stderr).toContain('Complexity level 90 needs 128 bits');
      const bad = await cli(['generate', '--length', '3000']);
      expect(bad.code).toBe(EXIT.usage);
      expect(bad.stderr).toContain('Expected --length of 4 to 128');
    });
  });

  describe('item create', () => {
    it('creates an item with a unicode label from a piped password with --yes, and prints no password', async () => {
      const password = 'Piped-Pw-Ünï 🦄 %;/?';
      written.push(password);
      const label = 'Zürich ☃ 🦄 deploy key';
      const created = await cli(
        [
          'item',
          'create',
          '--folder',
          'Engineering/Databases',
          '--label',
          label,
          '--url',
          'https://zürich.example/db',
          '--password-stdin',
          '--yes',
          '--json',
        ],
        { input: `${password}\n` },
      );
      expect(created.stderr).toBe('');
      expect(created.code).toBe(0);
      const { created: item } = JSON.parse(created.stdout) as {
        created: { id: number; path: string[]; reference: string };
      };
      expect(item.path).toEqual(['Engineering', 'Databases']);
      const stored = await seeded.admin.items.get(item.id);
      expect(stored).toMatchObject({
        label,
        password,
        folderId: seeded.folders.databases,
        url: 'https://zürich.example/db',
      });
      const found = await cli(['find', '--url', 'zürich.example', '--json']);
      expect(found.code).toBe(0);
      expect((JSON.parse(found.stdout) as { id: number }[]).map((row) => row.id)).toEqual([item.id]);
    });

    it('refuses without --yes off a terminal, and writes nothing', async () => {
      const refused = await cli(
        ['item', 'create', '--folder', 'Engineering', '--label', 'not without yes', '--password-stdin'],
        { input: 'Never-Written-1!\n' },
      );
      expect(refused.code).toBe(EXIT.usage);
      expect(refused.stderr).toContain(
        'not on a terminal, so nothing was asked and nothing was written. Add --yes',
      );
      expect(await labelsIn(seeded.folders.dev)).not.toContain('not without yes');
    });

    it(
      'refuses a read-only folder, an unknown one, a folder of others, and a missing password',
      async () => {
        const readOnly = await cli(
          ['item', 'create', '--folder', 'Shared', '--label', 'in shared', '--password-stdin', '--yes'],
          { input: 'Ro-Pw-123456!\n' },
        );
        expect(readOnly.code).toBe(EXIT.auth);
        expect(readOnly.stderr).toContain(
          'alice may not add items to it in "Shared": the right there is "read only"',
        );
        // With a key that may write everywhere acting for alice, the CLI checks alice's right itself.
        const adminAsAlice = await cli(
          ['item', 'create', '--folder', 'Shared', '--label', 'in shared', '--password-stdin', '--yes'],
          { input: 'Ro-Pw-123456!\n', env: { VAULTLINE_API_KEY: seeded.vault.adminKey } },
        );
        expect(adminAsAlice.code).toBe(EXIT.auth);
        expect(await labelsIn(seeded.folders.shared)).not.toContain('in shared');
        const unknown = await cli([
          'item',
          'create',
          '--folder',
          '424242',
          '--label',
          'x',
          '--generate',
          '--yes',
        ]);
        expect(unknown.code).toBe(EXIT.reference);
        const others = await cli([
          'item',
          'create',
          '--folder',
          'Ops',
          '--label',
          'x',
          '--generate',
          '--yes',
        ]);
        expect(others.code).toBe(EXIT.reference);
        expect(others.stderr).toContain('No folder "Ops" among the folders alice may access');
        const none = await cli(['item', 'create', '--folder', 'Engineering', '--label', 'no pw', '--yes']);
        expect(none.code).toBe(EXIT.usage);
        expect(none.stderr).toContain(
          'A new item needs a password: --password-stdin, --password-file or --generate',
        );
      },
      startsTimeout(5),
    );

    it('takes no password as an argument, and refuses oversized values without echoing them', async () => {
      const argv = await cli([
        'item',
        'create',
        '--folder',
        'Engineering',
        '--label',
        'argv',
        '--password',
        'Argv-Pw-1',
        '--yes',
      ]);
      expect(argv.code).toBe(EXIT.usage);
      expect(argv.stderr).toContain("unknown option '--password'");
      const huge = 'H'.repeat(20_000);
      const tooLong = await cli(
        ['item', 'create', '--folder', 'Engineering', '--label', 'huge', '--password-stdin', '--yes'],
        { input: huge },
      );
      expect(tooLong.code).toBe(EXIT.usage);
      expect(tooLong.stderr).toContain('longer than 16384 bytes');
      const bigPassword = `Big-${'p'.repeat(9000)}`;
      written.push(bigPassword);
      const tooBig = await cli(
        ['item', 'create', '--folder', 'Engineering', '--label', 'big one', '--password-stdin', '--yes'],
        { input: bigPassword },
      );
      expect(tooBig.code).not.toBe(0);
      expect(tooBig.stderr).not.toContain('ppppp');
      expect(await labelsIn(seeded.folders.dev)).not.toContain('big one');
    });

    it('generates the password for the folder rule with --generate', async () => {
      const created = await cli([
        'item',
        'create',
        '--folder',
        'Strong',
        '--label',
        'generated',
        '--generate',
        '--yes',
        '--json',
      ]);
      expect(created.code).toBe(0);
      const { created: item } = JSON.parse(created.stdout) as { created: { id: number } };
      const stored = await seeded.admin.items.get(item.id);
      written.push(stored!.password);
      expect(estimateBits(stored!.password)).toBeGreaterThanOrEqual(requiredBits(90));
    });
  });

  describe('item edit', () => {
    it('changes the fields given and a password from a file, and moves with --folder', async () => {
      const { id: itemId } = await seeded.admin.items.create({
        label: 'to edit',
        password: 'Old-Pw-Edit-1',
        folderId: seeded.folders.dev,
        login: 'keep-me',
      });
      written.push('Old-Pw-Edit-1');
      const file = join(home.dir, 'new-password');
      const password = 'From-File-Pw-Ω-77';
      written.push(password);
      await writeFile(file, `${password}\n`);
      await chmod(file, 0o600);
      const edited = await cli([
        'item',
        'edit',
        String(itemId),
        '--url',
        'https://edited.example',
        '--password-file',
        file,
        '--folder',
        'Engineering/Databases',
        '--yes',
        '--json',
      ]);
      expect(edited.code).toBe(0);
      expect(edited.stderr).toContain('This vault does not return tags when read');
      expect(JSON.parse(edited.stdout).edited).toMatchObject({
        id: itemId,
        path: ['Engineering', 'Databases'],
      });
      const stored = await seeded.admin.items.get(itemId);
      expect(stored).toMatchObject({
        password,
        url: 'https://edited.example',
        login: 'keep-me',
        folderId: seeded.folders.databases,
      });
    });

    it(
      'refuses malformed ids, items of others, moves into a read-only folder and empty edits',
      async () => {
        const malformed = await cli(['item', 'edit', '12abc', '--url', 'x']);
        expect(malformed.code).toBe(EXIT.usage);
        expect(malformed.stderr).toContain('Expected an item id (a positive whole number), received "12abc"');
        const others = await cli(['item', 'edit', String(id('ops secret')), '--url', 'x', '--yes'], {
          env: { VAULTLINE_API_KEY: seeded.vault.adminKey },
        });
        expect(others.code).toBe(EXIT.reference);
        expect(others.stderr).toContain(`No item ${id('ops secret')} that alice may read`);
        const move = await cli(['item', 'edit', String(id('api token')), '--folder', 'Shared', '--yes']);
        expect(move.code).toBe(EXIT.auth);
        expect(move.stderr).toContain('may not add items to it in "Shared"');
        const readOnly = await cli([
          'item',
          'edit',
          String(id('Café ☕ 100% / wifi')),
          '--url',
          'x',
          '--yes',
        ]);
        expect(readOnly.code).toBe(EXIT.auth);
        expect(readOnly.stderr).toContain('alice may not edit its items in "Shared"');
        const nothing = await cli(['item', 'edit', String(id('api token')), '--yes']);
        expect(nothing.code).toBe(EXIT.usage);
        expect(nothing.stderr).toContain('Nothing to change');
      },
      startsTimeout(5),
    );
  });

  describe('item delete', () => {
    it('deletes with --yes, refuses without, and refuses read-only and unknown items', async () => {
      const { id: itemId } = await seeded.admin.items.create({
        label: 'to delete',
        password: 'Del-Pw-1',
        folderId: seeded.folders.dev,
      });
      written.push('Del-Pw-1');
      const refused = await cli(['item', 'delete', String(itemId)]);
      expect(refused.code).toBe(EXIT.usage);
      expect(await labelsIn(seeded.folders.dev)).toContain('to delete');
      const readOnly = await cli([
        'item',
        'delete',
        String(itemId),
        String(id('Café ☕ 100% / wifi')),
        '--yes',
      ]);
      expect(readOnly.code).toBe(EXIT.auth);
      expect(await labelsIn(seeded.folders.dev)).toContain('to delete');
      const unknown = await cli(['item', 'delete', '999999', '--yes']);
      expect(unknown.code).toBe(EXIT.reference);
      // Among several, the message names just the missing one, and nothing is deleted.
      const mixed = await cli(['item', 'delete', String(itemId), '999999', '999998', '--yes']);
      expect(mixed.code).toBe(EXIT.reference);
      expect(mixed.stderr).toContain('No item 999999, 999998 that alice may read');
      expect(await labelsIn(seeded.folders.dev)).toContain('to delete');
      const deleted = await cli(['item', 'delete', String(itemId), '--yes', '--json']);
      expect(deleted.code).toBe(0);
      expect(JSON.parse(deleted.stdout).deleted).toEqual([
        expect.objectContaining({ id: itemId, label: 'to delete' }),
      ]);
      expect(await labelsIn(seeded.folders.dev)).not.toContain('to delete');
    });

    it(
      'asks on a terminal: no keeps the item, yes deletes it; a typed password is never shown',
      async () => {
        const { id: itemId } = await seeded.admin.items.create({
          label: 'asked',
          password: 'Asked-Pw-1',
          folderId: seeded.folders.dev,
        });
        written.push('Asked-Pw-1');
        const no = await runInTerminal(
          home.dir,
          ['item', 'delete', String(itemId)],
          [{ when: '[y/N] ', send: 'n\r' }],
          {
            env: asAlice(),
          },
        );
        expect(no.code).toBe(EXIT.error);
        expect(no.screen).toContain(`Delete item ${itemId} "asked"? [y/N]`);
        expect(await labelsIn(seeded.folders.dev)).toContain('asked');
        const yes = await runInTerminal(
          home.dir,
          ['item', 'delete', String(itemId)],
          [{ when: '[y/N] ', send: 'y\r' }],
          {
            env: asAlice(),
          },
        );
        expect(yes.code).toBe(0);
        expect(await labelsIn(seeded.folders.dev)).not.toContain('asked');
        const typed = 'Typed-Pw-Never-Shown-42';
        written.push(typed);
        const created = await runInTerminal(
          home.dir,
          ['item', 'create', '--folder', 'Engineering', '--label', 'typed'],
          [
            { when: 'New password (not shown): ', send: `${typed}\r` },
            { when: 'The same again: ', send: `${typed}\r` },
            { when: '[y/N] ', send: 'y\r' },
          ],
          { env: asAlice() },
        );
        expect(created.code).toBe(0);
        expect(created.screen).not.toContain(typed);
        const [item] = (await seeded.admin.items.list(seeded.folders.dev).all()).filter(
          (i) => i.label === 'typed',
        );
        expect(item?.password).toBe(typed);
      },
      startsTimeout(3),
    );
  });

  it('find --tag says the vault returns no tags', async () => {
    const result = await cli(['find', '--tag', 'prod']);
    expect(result.code).toBe(EXIT.error);
    expect(result.stderr).toContain('This vault does not return tags when items are read');
  });
});

describe('writing with the CLI against TeamPass 3 (the fake, over HTTP)', () => {
  const tp3Env = () => ({
    VAULTLINE_URL: tp3.fake.url,
    VAULTLINE_LOGIN: USERS.alice.login,
    VAULTLINE_PASSWORD: USERS.alice.password,
    VAULTLINE_API_KEY: USERS.alice.apiKey,
  });
  const tp3cli = (args: readonly string[], options: CliOptions = {}) =>
    cli(args, { ...options, env: { ...tp3Env(), ...options.env } });

  it(
    'creates, finds by tag and URL, edits and deletes, with the rights the server reports',
    async () => {
      const password = 'Tp3-Created-Pw-é-🦄-9';
      written.push(password);
      const created = await tp3cli(
        [
          'item',
          'create',
          '--folder',
          'Engineering',
          '--label',
          'ci token ☃',
          '--url',
          'https://ci.example.org/x',
          '--tags',
          'ci deploy',
          '--password-stdin',
          '--yes',
          '--json',
        ],
        { input: password },
      );
      expect(created.stderr).toBe('');
      expect(created.code).toBe(0);
      const itemId = (JSON.parse(created.stdout) as { created: { id: number } }).created.id;
      const byTag = await tp3cli(['find', '--tag', 'deploy', '--json']);
      expect(byTag.code).toBe(0);
      expect(JSON.parse(byTag.stdout)).toEqual([
        expect.objectContaining({ id: itemId, label: 'ci token ☃' }),
      ]);
      const byUrl = await tp3cli(['find', '--url', 'ci.example.org', '--json']);
      expect(byUrl.code).toBe(0);
      expect(JSON.parse(byUrl.stdout)).toEqual([
        expect.objectContaining({ id: itemId, path: ['Engineering'], url: 'https://ci.example.org/x' }),
      ]);
      expect(tp3.fake.requests.some((request) => request.url.includes('/item/findByUrl'))).toBe(true);
      const listed = await tp3cli(['ls', 'Engineering', '--json']);
      expect(
        (JSON.parse(listed.stdout) as { items: { id: number }[] }).items.map((item) => item.id),
      ).toContain(itemId);
      const edited = await tp3cli(['item', 'edit', String(itemId), '--login', 'ci-bot-2', '--yes']);
      expect(edited.code).toBe(0);
      // TeamPass 3 returns tags: no warning that they would be lost.
      expect(edited.stderr).toBe('');
      const read = await tp3cli(['read', `vaultline://${itemId}/login`]);
      expect(read.stdout).toBe('ci-bot-2\n');
      const readOnly = await tp3cli([
        'item',
        'create',
        '--folder',
        'Shared',
        '--label',
        'nope',
        '--generate',
        '--yes',
      ]);
      expect(readOnly.code).toBe(EXIT.auth);
      const deleted = await tp3cli(['item', 'delete', String(itemId), '--yes']);
      expect(deleted.code).toBe(0);
      const gone = await tp3cli(['read', `vaultline://${itemId}/login`]);
      expect(gone.code).toBe(EXIT.reference);
    },
    startsTimeout(10),
  );
});

describe('no secret in any output', () => {
  it('never prints a password, a key or a password it was given', () => {
    const secrets = [...seeded.secrets, ...tp3.secrets, ...written];
    for (const { args, result, allowed } of outputs) {
      // generate prints the password it makes: those are not vault secrets.
      expect(leaks(result, secrets, allowed), args.join(' ')).toEqual([]);
    }
  });
});
