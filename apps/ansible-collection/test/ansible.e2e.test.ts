import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createVaultClient } from '@vaultline/protocol';
import { startTeamPass3Fake, type TeamPass3Fake } from '@vaultline/protocol/testing';
import { startTestVault, type TestVault } from '@vaultline/vault-server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const here = fileURLToPath(new URL('.', import.meta.url));
const collectionDir = join(here, '..');
/** The real `vaultline`, built: the lookup runs it as users' controllers do. */
const CLI = fileURLToPath(new URL('../../cli/dist/cli.js', import.meta.url));
/** The command the lookup runs: `vaultline` as installed (a build's own file is not executable). */
const vaultlineBin = () => join(work, 'bin', 'vaultline');
const BATCH = 50;
const PASSWORD = `Ansible-Secret-${crypto.randomUUID()}`;

let work: string;
let vault: TestVault;
let aliceKey: string;
let itemId: number;
let batchIds: number[];
const logLines: string[] = [];

interface PlayResult {
  code: number | null;
  output: string;
}

/** Runs ansible-playbook with the collection installed in the work dir; the log file is part of the output. */
async function play(
  playbook: string,
  extraVars: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<PlayResult> {
  const logPath = join(work, `ansible-${crypto.randomUUID()}.log`);
  const child = spawn(
    'ansible-playbook',
    [
      '-vvv',
      join(here, 'playbooks', playbook),
      '-e',
      JSON.stringify({ out: join(work, 'out'), ...extraVars }),
    ],
    {
      env: {
        PATH: `${dirname(process.execPath)}:${process.env.PATH ?? '/usr/bin:/bin'}`,
        HOME: work,
        ANSIBLE_COLLECTIONS_PATH: join(work, 'collections'),
        ANSIBLE_LOCAL_TEMP: join(work, 'tmp'),
        ANSIBLE_LOG_PATH: logPath,
        ANSIBLE_NOCOLOR: '1',
        ANSIBLE_FORCE_COLOR: '0',
        ANSIBLE_PYTHON_INTERPRETER: 'auto_silent',
        ANSIBLE_INVENTORY_UNPARSED_WARNING: 'false',
        ANSIBLE_LOCALHOST_WARNING: 'false',
        VAULTLINE_CLI: vaultlineBin(),
        XDG_CONFIG_HOME: join(work, 'config'),
        VAULTLINE_CACHE_DIR: join(work, 'cache'),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  const log = await readFile(logPath, 'utf8').catch(() => '');
  return { code, output: `${Buffer.concat(chunks).toString('utf8')}\n${log}` };
}

/** The operations the vault answered since a mark (its request log: one line per request). */
function opsSince(mark: number): string[] {
  return logLines
    .slice(mark)
    .map((line) => JSON.parse(line) as { msg?: string; op?: string; status?: number })
    .filter((entry) => entry.msg === 'request' && entry.op !== undefined)
    .map((entry) => `${entry.op} ${entry.status}`);
}

/** The line the lookup displays for a failed task (shown even under no_log, which hides the task's message). */
function failureLine(output: string): string | undefined {
  return /^(?:.* \| )?(vaultline\.vault\.ref: (?!resolving).*)$/m.exec(output)?.[1];
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'vaultline-ansible-'));
  await mkdir(join(work, 'out'));
  await mkdir(join(work, 'tmp'));
  await mkdir(join(work, 'bin'));
  await writeFile(vaultlineBin(), `#!/bin/sh\nexec '${process.execPath}' '${CLI}' "$@"\n`, { mode: 0o755 });
  // The collection as users install it: built by ansible-galaxy, installed from the tarball.
  await promisify(execFile)(process.execPath, [join(collectionDir, 'build.ts')]);
  const tarball = (await readdir(join(collectionDir, 'dist'))).find((name) => name.endsWith('.tar.gz'));
  await promisify(execFile)('ansible-galaxy', [
    'collection',
    'install',
    '--force',
    '-p',
    join(work, 'collections'),
    join(collectionDir, 'dist', tarball!),
  ]);

  vault = await startTestVault({ logLines });
  await vault.admin.createUser({ login: 'alice' });
  await vault.admin.createRole({ name: 'ops' });
  await vault.admin.assignRole('alice', 'ops');
  const admin = createVaultClient({ baseUrl: vault.url, auth: vault.adminKey });
  const ops = await admin.folders.create({ title: 'Ops', complexityLevel: 0 });
  const databases = await admin.folders.create({ title: 'Databases', parentId: ops.id, complexityLevel: 0 });
  for (const folder of [ops.id, databases.id]) await vault.admin.grant('ops', folder, 'R');
  const [first] = await vault.admin.addItems([
    {
      label: 'prod db',
      password: PASSWORD,
      description: '',
      folderId: String(databases.id),
      login: 'postgres',
      email: '',
      url: '',
      tags: '',
      anyoneCanModify: '0',
    },
  ]);
  itemId = first!;
  batchIds = await vault.admin.addItems(
    Array.from({ length: BATCH }, (_, i) => ({
      label: `batch ${i}`,
      password: `${PASSWORD}-${i}`,
      description: '',
      folderId: String(ops.id),
      login: '',
      email: '',
      url: '',
      tags: '',
      anyoneCanModify: '0',
    })),
  );
  aliceKey = await vault.admin.createKey({ label: 'ansible', login: 'alice' });
});
afterAll(async () => {
  await vault?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

const connection = () => ({
  VAULTLINE_URL: vault.url,
  VAULTLINE_API_KEY: aliceKey,
  VAULTLINE_LOGIN: 'alice',
});

describe('the vaultline.vault.ref lookup', () => {
  it('resolves references by id, path and field, many in one batch, and no_log keeps values out of the output and log', async () => {
    const mark = logLines.length;
    const result = await play(
      'read.yml',
      { item_id: itemId, batch: batchIds.map((id) => `vaultline://${id}/password`) },
      connection(),
    );
    expect(result.code, result.output).toBe(0);
    expect(await readFile(join(work, 'out', 'by-id'), 'utf8')).toBe(PASSWORD);
    expect(await readFile(join(work, 'out', 'by-path'), 'utf8')).toBe('postgres');
    expect(await readFile(join(work, 'out', 'batch'), 'utf8')).toBe(
      batchIds.map((_, i) => `${PASSWORD}-${i}`).join('\n'),
    );
    // The task without no_log shows its value: the others are hidden by no_log, not by chance.
    expect(result.output).toContain('label=prod db');
    expect(result.output).not.toContain(PASSWORD);
    expect(result.output).not.toContain(aliceKey);
    // 50 references in one lookup: one read of the items, not 50.
    const ops = opsSince(mark);
    expect(ops.filter((op) => op.startsWith('read/items')).length).toBeLessThanOrEqual(4);
    expect(ops.every((op) => op.endsWith(' 200'))).toBe(true);
  });

  it('costs one request per lookup for a play of many lookups', async () => {
    const ids = batchIds.slice(0, 10);
    const mark = logLines.length;
    const result = await play('many.yml', { ids }, connection());
    expect(result.code, result.output).toBe(0);
    for (const [i, id] of ids.entries())
      expect(await readFile(join(work, 'out', `many-${id}`), 'utf8')).toBe(`${PASSWORD}-${i}`);
    const ops = opsSince(mark);
    // One request per lookup: the first lookup's identifications (who the server is, whom the key
    // acts as) are kept for the next ones, and the server enforces alice's rights on her key.
    expect(ops.filter((op) => op.startsWith('info/version')).length).toBeLessThanOrEqual(2);
    expect(ops.filter((op) => op.startsWith('read/items'))).toHaveLength(ids.length);
    expect(ops.filter((op) => op.startsWith('read/userfolders'))).toEqual([]);
  });

  it.each([
    {
      what: 'a missing item',
      vars: () => ({ reference: 'vaultline://999999/password', vault_url: vault.url, vault_key: aliceKey }),
      line: /^vaultline\.vault\.ref: .*999999/,
    },
    {
      what: 'a refused key',
      vars: () => ({
        reference: `vaultline://${itemId}/password`,
        vault_url: vault.url,
        vault_key: 'not-a-key',
      }),
      line: /^vaultline\.vault\.ref: .*(API key|key)/i,
    },
    {
      what: 'an unreachable vault',
      vars: () => ({
        reference: `vaultline://${itemId}/password`,
        vault_url: 'http://127.0.0.1:9',
        vault_key: aliceKey,
      }),
      line: /^vaultline\.vault\.ref: .*(reach|connect)/i,
    },
  ])('fails the task with one clear line for $what', async ({ vars, line }) => {
    const result = await play('fail.yml', vars(), { VAULTLINE_LOGIN: 'alice' });
    expect(result.code, result.output).toBe(2);
    const message = failureLine(result.output);
    expect(message, result.output).toMatch(line);
    expect(message).not.toContain('\\n');
    expect(result.output).not.toContain(PASSWORD);
    expect(result.output).not.toContain(aliceKey);
  });
});

describe('the vaultline.vault.ref lookup on TeamPass 3', () => {
  let fake: TeamPass3Fake;
  const user = {
    login: 'deployer',
    password: `Tp3-Pw-${crypto.randomUUID()}`,
    apiKey: 'deployerApiKey0123456789abcdefghijklmnop',
  };
  beforeAll(async () => {
    fake = await startTeamPass3Fake({
      seed: {
        folders: [{ title: 'Ops' }],
        roles: [{ name: 'Deploy', folders: { Ops: 'R' } }],
        users: [{ ...user, roles: ['Deploy'] }],
        items: Array.from({ length: 10 }, (_, i) => ({
          id: i + 1,
          label: `tp3 ${i}`,
          folder: 'Ops',
          password: `${PASSWORD}-tp3-${i}`,
        })),
      },
    });
  });
  afterAll(async () => {
    await fake?.close();
  });

  it('signs in once for a play of many lookups', async () => {
    const ids = Array.from({ length: 10 }, (_, i) => i + 1);
    const result = await play(
      'many.yml',
      { ids },
      {
        VAULTLINE_URL: fake.url,
        VAULTLINE_LOGIN: user.login,
        VAULTLINE_PASSWORD: user.password,
        VAULTLINE_API_KEY: user.apiKey,
      },
    );
    expect(result.code, result.output).toBe(0);
    for (const id of ids) {
      expect(await readFile(join(work, 'out', `many-${id}`), 'utf8')).toBe(`${PASSWORD}-tp3-${id - 1}`);
    }
    expect(fake.requests.filter((request) => request.url.includes('authorize'))).toHaveLength(1);
    // Besides the first task's identification and sign-in, one request per lookup: the item.
    const reads = fake.requests.filter(
      (request) => !request.url.includes('authorize') && !request.url.includes('/info/version'),
    );
    expect(reads.map((request) => request.url.replace(/\?.*/, ''))).toEqual(
      ids.map(() => '/api/index.php/item/get'),
    );
    for (const secret of [PASSWORD, user.password, user.apiKey]) expect(result.output).not.toContain(secret);
  });
});
