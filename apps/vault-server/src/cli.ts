#!/usr/bin/env node
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ACCESS_TYPES, VaultError } from '@vaultline/protocol';
import { configFromEnv, type VaultServerConfig } from './config.ts';
import { QUICKSTART_KEY_FILE } from './constants.ts';
import { writeSecretFile } from './crypto/master-key.ts';
import { seedDemo } from './demo.ts';
import { invalid } from './errors.ts';
import { rotateMasterKey } from './rotate-master-key.ts';
import { startVaultServer } from './start-vault-server.ts';
import { type Actor, operatorActor } from './store/actor.ts';
import { openVault, type Vault } from './vault.ts';

const USAGE = `Usage: vaultline-server <command> [options]

Commands:
  start                         Serve the API (configuration from VAULTLINE_* env and DATABASE_URL)
  quickstart                    Start with the demo vault in ./.data/vault and print an admin key
  demo                          Seed the demo vault into the configured store
  keys create --label L [--user LOGIN] [--allow-ip CIDR]...   Create an API key (shown once)
  keys list                     List keys (labels, owners, allow-lists; never the keys)
  keys revoke --label L         Revoke a key
  users list | users create --login L [--email E] | users assign --login L --role R
  roles list | roles create --name N
  grant --role R --folder ID --access W|ND|NE|NDNE|R   Set a role's right on a folder
  revoke --role R --folder ID   Remove a role's right on a folder
  audit [--limit N] [--action OP] [--json]             Show the audit log, newest first
  rotate-master-key             Re-encrypt all secrets under a new master key (server stopped)

Environment: VAULTLINE_HOST, VAULTLINE_PORT (7700), VAULTLINE_DATA_DIR (./.data/vault), DATABASE_URL,
VAULTLINE_MASTER_KEY, VAULTLINE_MAX_URL_LENGTH, VAULTLINE_MAX_FILE_BYTES, VAULTLINE_RATE_LIMIT_PER_MINUTE,
VAULTLINE_FAILED_KEY_LIMIT, VAULTLINE_TRUSTED_PROXIES, VAULTLINE_LOG_LEVEL, VAULTLINE_CACHE_TTL_MS.`;

/** A mistake in the command line: printed with the usage, exit code 2. */
class UsageError extends Error {
  override name = 'UsageError';
}

/** Who runs the CLI, as the audit names them: the operating-system user. */
function operator(): Actor {
  let name: string;
  try {
    name = userInfo().username;
  } catch {
    name = process.env.USER ?? 'unknown';
  }
  return operatorActor(name, 'cli');
}

function repoRoot(): string {
  // dist/cli.js (or src/cli.ts) → apps/vault-server → apps → repo root
  return resolve(fileURLToPath(new URL('../../../', import.meta.url)));
}

function config(defaultDataDir: string): VaultServerConfig {
  return configFromEnv(process.env, defaultDataDir);
}

function options(args: string[], spec: Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>) {
  try {
    return parseArgs({ args, options: spec, allowPositionals: false, strict: true }).values as Record<
      string,
      string | boolean | string[] | undefined
    >;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function required(values: Record<string, unknown>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`Missing --${name}.`);
  return value;
}

function folderIdOf(text: string): number {
  if (!/^[1-9][0-9]{0,15}$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new UsageError(`Expected --folder to be a positive integer, received ${JSON.stringify(text)}.`);
  }
  return Number(text);
}

async function withVault<T>(work: (vault: Vault) => Promise<T>): Promise<T> {
  const cfg = config(resolve('.data/vault'));
  const vault = await openVault({
    dataDir: cfg.dataDir,
    databaseUrl: cfg.databaseUrl,
    masterKey: cfg.masterKey,
    cacheTtlMs: 0,
    createMasterKey: true,
  });
  try {
    return await work(vault);
  } finally {
    await vault.close();
  }
}

function untilSignal(close: () => Promise<void>): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`${signal} received: finishing requests in flight…\n`);
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`error while stopping: ${(error as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

async function start() {
  const cfg = config(resolve('.data/vault'));
  const server = await startVaultServer(cfg);
  untilSignal(() => server.close());
  process.stderr.write(`Vaultline vault server listening on ${server.url}\n`);
}

async function quickstart() {
  const cfg = config(join(repoRoot(), '.data/vault'));
  if (cfg.databaseUrl === undefined && cfg.dataDir === undefined)
    throw invalid('quickstart needs a data directory.');
  const server = await startVaultServer({ ...cfg, log: { write: () => {} } });
  // Before anything is printed: whoever reads "Press Ctrl+C" may signal at once.
  untilSignal(() => server.close());
  try {
    const keyFile = join(cfg.dataDir!, QUICKSTART_KEY_FILE);
    let adminKey: string;
    if (existsSync(keyFile)) {
      adminKey = (await readFile(keyFile, 'utf8')).trim();
      process.stdout.write(`Reusing the vault in ${cfg.dataDir}\n`);
    } else {
      adminKey = await server.vault
        .adminAs(operator())
        .createKey({ label: `quickstart-admin-${Date.now()}` });
      // A vault that already has users (made with `start` and the CLI) keeps its data: no demo on top.
      const empty = (await server.vault.adminAs(operator()).listUsers()).length === 0;
      if (empty) await seedDemo(server.url, adminKey, server.vault.adminAs(operator()));
      await writeSecretFile(keyFile, adminKey);
      process.stdout.write(
        `${empty ? 'Created a demo vault' : 'Created an admin key for the vault'} in ${cfg.dataDir}\n`,
      );
    }
    const api = `${server.url}/api/index.php`;
    process.stdout.write(
      [
        '',
        `Vaultline vault server: ${server.url}`,
        `Admin API key:          ${adminKey}`,
        `  (a demo convenience: kept in ${keyFile}, mode 0600; \`start\` never stores keys)`,
        '',
        'Try:',
        `  curl '${api}/read/userfolders/alice?apikey=${adminKey}'`,
        `  curl '${api}/find/item/1;2;3;4;5;6/postgres?apikey=${adminKey}'`,
        `  curl '${api}/read/items/1;2?apikey=${adminKey}'`,
        '',
        'Press Ctrl+C to stop.',
        '',
      ].join('\n'),
    );
  } catch (error) {
    await server.close();
    throw error;
  }
}

async function demo() {
  const cfg = config(resolve('.data/vault'));
  const server = await startVaultServer({ ...cfg, host: '127.0.0.1', port: 0, log: { write: () => {} } });
  const label = `demo-seed-${Date.now()}`;
  try {
    const key = await server.vault.adminAs(operator()).createKey({ label });
    const seeded = await seedDemo(server.url, key, server.vault.adminAs(operator()));
    await server.vault.adminAs(operator()).revokeKey(label);
    process.stdout.write(
      `Seeded the demo vault: users ${Object.keys(seeded.users).join(', ')}; ${Object.keys(seeded.folders).length} folders; ${Object.keys(seeded.items).length} items.\n`,
    );
  } finally {
    await server.close();
  }
}

function table(rows: Record<string, unknown>[]): string {
  if (rows.length === 0) return '(none)\n';
  const columns = Object.keys(rows[0]!);
  const cells = rows.map((row) => columns.map((column) => String(row[column] ?? '')));
  const widths = columns.map((column, i) => Math.max(column.length, ...cells.map((cell) => cell[i]!.length)));
  const line = (values: string[]) =>
    values
      .map((value, i) => value.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return `${[line(columns), ...cells.map(line)].join('\n')}\n`;
}

async function keys(args: string[]) {
  const [sub, ...rest] = args;
  if (sub === 'create') {
    const values = options(rest, {
      label: { type: 'string' },
      user: { type: 'string' },
      'allow-ip': { type: 'string', multiple: true },
    });
    const label = required(values, 'label');
    const key = await withVault((vault) =>
      vault.adminAs(operator()).createKey({
        label,
        ...(typeof values.user === 'string' ? { login: values.user } : {}),
        allowIps: (values['allow-ip'] as string[] | undefined) ?? [],
      }),
    );
    process.stdout.write(`${key}\n`);
    process.stderr.write('This key is shown once; only its hash is stored.\n');
    return;
  }
  if (sub === 'list') {
    options(rest, {});
    const list = await withVault((vault) => vault.adminAs(operator()).listKeys());
    process.stdout.write(
      table(
        list.map((k) => ({
          label: k.label,
          user: k.login ?? '(admin)',
          allow_ips: k.allowIps.join(',') || '(any)',
          created: k.createdAt,
          revoked: k.revokedAt ?? '',
        })),
      ),
    );
    return;
  }
  if (sub === 'revoke') {
    const values = options(rest, { label: { type: 'string' } });
    const label = required(values, 'label');
    await withVault((vault) => vault.adminAs(operator()).revokeKey(label));
    process.stdout.write(`Revoked ${label}.\n`);
    return;
  }
  throw new UsageError(`Expected keys create|list|revoke, received ${JSON.stringify(sub ?? '')}.`);
}

async function users(args: string[]) {
  const [sub = 'list', ...rest] = args;
  if (sub === 'list') {
    options(rest, {});
    const list = await withVault((vault) => vault.adminAs(operator()).listUsers());
    process.stdout.write(
      table(list.map((u) => ({ id: u.id, login: u.login, email: u.email, roles: u.roles.join(',') }))),
    );
    return;
  }
  if (sub === 'create') {
    const values = options(rest, { login: { type: 'string' }, email: { type: 'string' } });
    const login = required(values, 'login');
    const { id } = await withVault((vault) =>
      vault
        .adminAs(operator())
        .createUser({ login, ...(typeof values.email === 'string' ? { email: values.email } : {}) }),
    );
    process.stdout.write(`Created user ${login} with id ${id}.\n`);
    return;
  }
  if (sub === 'assign' || sub === 'unassign') {
    const values = options(rest, { login: { type: 'string' }, role: { type: 'string' } });
    const login = required(values, 'login');
    const role = required(values, 'role');
    await withVault((vault) =>
      sub === 'assign'
        ? vault.adminAs(operator()).assignRole(login, role)
        : vault.adminAs(operator()).unassignRole(login, role),
    );
    process.stdout.write(
      `${sub === 'assign' ? 'Gave' : 'Took'} role ${role} ${sub === 'assign' ? 'to' : 'from'} ${login}.\n`,
    );
    return;
  }
  throw new UsageError(`Expected users list|create|assign|unassign, received ${JSON.stringify(sub)}.`);
}

async function roles(args: string[]) {
  const [sub = 'list', ...rest] = args;
  if (sub === 'list') {
    options(rest, {});
    const list = await withVault((vault) => vault.adminAs(operator()).listRoles());
    process.stdout.write(
      table(
        list.map((r) => ({
          id: r.id,
          name: r.name,
          rights: r.rights.map((x) => `${x.folderId}:${x.access}`).join(' '),
        })),
      ),
    );
    return;
  }
  if (sub === 'create') {
    const values = options(rest, { name: { type: 'string' } });
    const name = required(values, 'name');
    const { id } = await withVault((vault) => vault.adminAs(operator()).createRole({ name }));
    process.stdout.write(`Created role ${name} with id ${id}.\n`);
    return;
  }
  throw new UsageError(`Expected roles list|create, received ${JSON.stringify(sub)}.`);
}

async function grant(args: string[]) {
  const values = options(args, {
    role: { type: 'string' },
    folder: { type: 'string' },
    access: { type: 'string' },
  });
  const role = required(values, 'role');
  const folderId = folderIdOf(required(values, 'folder'));
  const access = required(values, 'access');
  if (!(ACCESS_TYPES as readonly string[]).includes(access)) {
    throw new UsageError(
      `Expected --access to be one of ${ACCESS_TYPES.join(', ')}, received ${JSON.stringify(access)}.`,
    );
  }
  await withVault((vault) => vault.adminAs(operator()).grant(role, folderId, access as 'W'));
  process.stdout.write(`Role ${role} has ${access} on folder ${folderId}.\n`);
}

async function revoke(args: string[]) {
  const values = options(args, { role: { type: 'string' }, folder: { type: 'string' } });
  const role = required(values, 'role');
  const folderId = folderIdOf(required(values, 'folder'));
  await withVault((vault) => vault.adminAs(operator()).revoke(role, folderId));
  process.stdout.write(`Role ${role} has no right on folder ${folderId} any more.\n`);
}

async function audit(args: string[]) {
  const values = options(args, {
    limit: { type: 'string' },
    action: { type: 'string' },
    json: { type: 'boolean' },
  });
  const limitText = typeof values.limit === 'string' ? values.limit : '50';
  if (!/^[1-9][0-9]{0,5}$/.test(limitText))
    throw new UsageError(`Expected --limit to be 1 to 999999, received ${JSON.stringify(limitText)}.`);
  const entries = await withVault((vault) =>
    vault.adminAs(operator()).listAudit({
      limit: Number(limitText),
      action: typeof values.action === 'string' ? values.action : undefined,
    }),
  );
  if (values.json) process.stdout.write(`${entries.map((entry) => JSON.stringify(entry)).join('\n')}\n`);
  else
    process.stdout.write(
      table(
        entries.map((e) => ({
          at: e.at,
          actor: e.actor,
          key: e.keyLabel,
          action: e.action,
          target: e.target,
          address: e.address,
          outcome: e.outcome,
          count: e.count,
        })),
      ),
    );
}

async function rotate(args: string[]) {
  options(args, {});
  const cfg = config(resolve('.data/vault'));
  const result = await rotateMasterKey({
    dataDir: cfg.dataDir,
    databaseUrl: cfg.databaseUrl,
    masterKey: cfg.masterKey,
    cacheTtlMs: 0,
  });
  process.stdout.write(`Re-encrypted ${result.items} passwords and ${result.files} attachments.\n`);
  if (result.newKey) {
    process.stdout.write(
      `New master key (set VAULTLINE_MASTER_KEY to it before the next start):\n${result.newKey}\n`,
    );
  }
}

/** Runs the command line. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'start':
        options(rest, {});
        await start();
        return -1;
      case 'quickstart':
        options(rest, {});
        await quickstart();
        return -1;
      case 'demo':
        options(rest, {});
        await demo();
        return 0;
      case 'keys':
        await keys(rest);
        return 0;
      case 'users':
        await users(rest);
        return 0;
      case 'roles':
        await roles(rest);
        return 0;
      case 'grant':
        await grant(rest);
        return 0;
      case 'revoke':
        await revoke(rest);
        return 0;
      case 'audit':
        await audit(rest);
        return 0;
      case 'rotate-master-key':
        await rotate(rest);
        return 0;
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(`${USAGE}\n`);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`Unknown command ${JSON.stringify(command)}.`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`error: ${error.message}\n\n${USAGE}\n`);
      return 2;
    }
    if (error instanceof VaultError) {
      process.stderr.write(`error: ${error.message}\n`);
      return 1;
    }
    process.stderr.write(`error: ${(error as Error).message ?? String(error)}\n`);
    return 1;
  }
}

const code = await main(process.argv.slice(2));
if (code >= 0) process.exitCode = code;
