// The CLI proper: every command of `vaultline-server` (cli.ts runs it after the memory settings).
// What only one command needs (the import, the demo, the key rotation, progress bars) is loaded by
// that command: a running server does not hold it in memory.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ACCESS_TYPES, neutralizeText } from '@vaultline/protocol';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { configFromEnv, type VaultServerConfig } from './config.ts';
import { QUICKSTART_KEY_FILE } from './constants.ts';
import { writeSecretFile } from './crypto/master-key.ts';
import type { ImportSummary } from './import/import-vault.ts';
import { startVaultServer } from './start-vault-server.ts';
import { type Actor, operatorActor } from './store/actor.ts';
import { openVault, type Vault, type VaultAdmin } from './vault.ts';

/** Exit codes, the same as the `vaultline` CLI: 0 ok, 1 error, 2 usage. */
const EXIT = { ok: 0, error: 1, usage: 2 } as const;

/** Where the CLI writes: the process's streams, or a test's buffers. */
interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

/** Text for the terminal, line by line: what it echoes can neither drive the terminal nor reorder a line. */
function printable(text: string): string {
  return text.split('\n').map(neutralizeText).join('\n');
}

const PROCESS_IO: CliIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

const ENVIRONMENT_HELP = `
Environment: VAULTLINE_HOST, VAULTLINE_PORT (7700), VAULTLINE_DATA_DIR (./.data/vault), DATABASE_URL,
VAULTLINE_MASTER_KEY, VAULTLINE_MAX_URL_LENGTH, VAULTLINE_MAX_FILE_BYTES, VAULTLINE_RATE_LIMIT_PER_MINUTE,
VAULTLINE_FAILED_KEY_LIMIT, VAULTLINE_TRUSTED_PROXIES, VAULTLINE_LOG_LEVEL, VAULTLINE_CACHE_TTL_MS,
VAULTLINE_MEMORY_TUNING (on|off: re-execute a server on PGlite with its memory settings).
Exit codes: 0 ok, 1 error, 2 usage.`;

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
  // dist/cli-main.js (or src/cli-main.ts) → apps/vault-server → apps → repo root
  return resolve(fileURLToPath(new URL('../../../', import.meta.url)));
}

function config(defaultDataDir: string): VaultServerConfig {
  return configFromEnv(process.env, defaultDataDir);
}

function positiveInteger(name: string, max: number) {
  return (text: string): number => {
    if (!/^[1-9][0-9]{0,15}$/.test(text) || !Number.isSafeInteger(Number(text)) || Number(text) > max) {
      throw new InvalidArgumentError(`Expected ${name} to be a whole number from 1 to ${max}.`);
    }
    return Number(text);
  };
}

/** A right a role can be granted. */
type GrantableRight = (typeof ACCESS_TYPES)[number];

function accessType(text: string): GrantableRight {
  const found = ACCESS_TYPES.find((access) => access === text);
  if (found === undefined)
    throw new InvalidArgumentError(`Expected --access to be one of ${ACCESS_TYPES.join(', ')}.`);
  return found;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
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

/** Runs `work` with the administration of the configured vault, acting as the CLI's operator. */
function withAdmin<T>(work: (admin: VaultAdmin) => Promise<T>): Promise<T> {
  return withVault((vault) => work(vault.adminAs(operator())));
}

function untilSignal(io: CliIo, close: () => Promise<void>): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    io.err(`${signal} received: finishing requests in flight…\n`);
    close().then(
      () => process.exit(EXIT.ok),
      (error: unknown) => {
        io.err(`error while stopping: ${error instanceof Error ? error.message : String(error)}\n`);
        process.exit(EXIT.error);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
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

/** A list: a table, or with `--json` one JSON record per line. */
function list(io: CliIo, json: boolean | undefined, rows: Record<string, unknown>[], records: unknown[]) {
  if (json) io.out(records.map((record) => `${JSON.stringify(record)}\n`).join(''));
  else io.out(table(rows));
}

async function start(io: CliIo) {
  const cfg = config(resolve('.data/vault'));
  const server = await startVaultServer(cfg);
  untilSignal(io, () => server.close());
  io.err(`Vaultline vault server listening on ${server.url}\n`);
}

async function quickstart(io: CliIo) {
  const cfg = config(join(repoRoot(), '.data/vault'));
  if (cfg.dataDir === undefined) throw new Error('quickstart needs a data directory.');
  const dataDir = cfg.dataDir;
  const server = await startVaultServer({ ...cfg, log: { write: () => {} } });
  // Before anything is printed: whoever reads "Press Ctrl+C" may signal at once.
  untilSignal(io, () => server.close());
  try {
    const keyFile = join(dataDir, QUICKSTART_KEY_FILE);
    const admin = server.vault.adminAs(operator());
    let adminKey: string;
    if (existsSync(keyFile)) {
      adminKey = (await readFile(keyFile, 'utf8')).trim();
      io.out(`Reusing the vault in ${dataDir}\n`);
    } else {
      adminKey = await admin.createKey({ label: `quickstart-admin-${Date.now()}` });
      // A vault that already has users (made with `start` and the CLI) keeps its data: no demo on top.
      const empty = (await admin.listUsers()).length === 0;
      if (empty) await (await import('./demo.ts')).seedDemo(server.url, adminKey, admin);
      await writeSecretFile(keyFile, adminKey);
      io.out(`${empty ? 'Created a demo vault' : 'Created an admin key for the vault'} in ${dataDir}\n`);
    }
    const api = `${server.url}/api/index.php`;
    io.out(
      [
        '',
        `Vaultline vault server: ${server.url}`,
        `Admin API key:          ${adminKey}`,
        `  (a demo convenience: kept in ${keyFile}, mode 0600; \`start\` never stores keys)`,
        '',
        'Try:',
        `  curl -H 'Authorization: Bearer ${adminKey}' '${api}/read/userfolders/alice'`,
        `  curl -H 'Authorization: Bearer ${adminKey}' '${api}/find/item/1;2;3;4;5;6/postgres'`,
        `  curl -H 'Authorization: Bearer ${adminKey}' '${api}/read/items/1;2'`,
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

async function demo(io: CliIo) {
  const cfg = config(resolve('.data/vault'));
  const server = await startVaultServer({ ...cfg, host: '127.0.0.1', port: 0, log: { write: () => {} } });
  const label = `demo-seed-${Date.now()}`;
  const admin = server.vault.adminAs(operator());
  try {
    const key = await admin.createKey({ label });
    const { seedDemo } = await import('./demo.ts');
    const seeded = await seedDemo(server.url, key, admin);
    await admin.revokeKey(label);
    io.out(
      `Seeded the demo vault: users ${Object.keys(seeded.users).join(', ')}; ${Object.keys(seeded.folders).length} folders; ${Object.keys(seeded.items).length} items.\n`,
    );
  } finally {
    await server.close();
  }
}

function importReport(summary: ImportSummary): string {
  const count = (name: string, c: { added: number; existing: number }) =>
    `  ${name.padEnd(8)} ${summary.dryRun ? 'would add' : 'added'} ${c.added}, already here ${c.existing}\n`;
  const lines = [
    `${summary.dryRun ? 'Dry run: nothing written. ' : ''}Import from ${summary.source}:\n`,
    count('folders', summary.folders),
    count('items', summary.items),
    count('files', summary.files),
    count('users', summary.users),
    count('rights', summary.rights),
    `  skipped  ${summary.skipped.length}\n`,
    ...summary.skipped.map((entry) => `    ${entry.what}: ${entry.reason}\n`),
  ];
  const nothingNew = [summary.folders, summary.items, summary.files, summary.users, summary.rights].every(
    (c) => c.added === 0,
  );
  if (nothingNew)
    lines.push('Nothing new to import: this vault already holds everything the source showed.\n');
  return lines.join('');
}

/**
 * Builds the command line: every command and option, with the help commander generates.
 *
 * @param io Where output goes.
 * @returns The program; `keepAlive` tells whether a command left a server running.
 */
function createProgram(io: CliIo = PROCESS_IO): { program: Command; keepAlive: () => boolean } {
  let keepAlive = false;
  const program = new Command('vaultline-server')
    .description('The Vaultline vault server and its administration.')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: (text) => io.err(printable(text)) })
    .showHelpAfterError('(add --help for usage)')
    .addHelpText('after', ENVIRONMENT_HELP);

  program
    .command('start')
    .description('Serve the API (configuration from VAULTLINE_* env and DATABASE_URL).')
    .action(async () => {
      await start(io);
      keepAlive = true;
    });
  program
    .command('quickstart')
    .description('Start with the demo vault in ./.data/vault and print an admin key.')
    .action(async () => {
      await quickstart(io);
      keepAlive = true;
    });
  program
    .command('demo')
    .description('Seed the demo vault into the configured store.')
    .action(() => demo(io));

  const keys = program.command('keys').description('API keys: create, list, revoke.');
  keys
    .command('create')
    .description('Create an API key; it is shown once and only its hash is stored.')
    .requiredOption('--label <label>', 'a unique label for the key')
    .option('--user <login>', 'bind the key to this user (an admin key without it)')
    .option('--allow-ip <cidr>', 'allow only this address or CIDR range (repeatable)', collect, [])
    .option('--json', 'print {"label","key"} as JSON')
    .action(async (options: { label: string; user?: string; allowIp: string[]; json?: boolean }) => {
      const key = await withAdmin((admin) =>
        admin.createKey({
          label: options.label,
          ...(options.user === undefined ? {} : { login: options.user }),
          allowIps: options.allowIp,
        }),
      );
      io.out(options.json ? `${JSON.stringify({ label: options.label, key })}\n` : `${key}\n`);
      io.err('This key is shown once; only its hash is stored.\n');
    });
  keys
    .command('list')
    .description('List keys (labels, owners, allow-lists; never the keys).')
    .option('--json', 'one JSON record per line')
    .action(async (options: { json?: boolean }) => {
      const found = await withAdmin((admin) => admin.listKeys());
      list(
        io,
        options.json,
        found.map((k) => ({
          label: k.label,
          user: k.login ?? '(admin)',
          allow_ips: k.allowIps.join(',') || '(any)',
          created: k.createdAt,
          revoked: k.revokedAt ?? '',
        })),
        found,
      );
    });
  keys
    .command('revoke')
    .description('Revoke a key.')
    .requiredOption('--label <label>', 'the key to revoke')
    .action(async (options: { label: string }) => {
      await withAdmin((admin) => admin.revokeKey(options.label));
      io.out(`Revoked ${options.label}.\n`);
    });

  const users = program.command('users').description('Users: list, create, assign or unassign a role.');
  users
    .command('list', { isDefault: true })
    .description('List users with their roles.')
    .option('--json', 'one JSON record per line')
    .action(async (options: { json?: boolean }) => {
      const found = await withAdmin((admin) => admin.listUsers());
      list(
        io,
        options.json,
        found.map((u) => ({ id: u.id, login: u.login, email: u.email, roles: u.roles.join(',') })),
        found,
      );
    });
  users
    .command('create')
    .description('Create a user.')
    .requiredOption('--login <login>', 'letters, digits, ".", "_", "@" or "-"')
    .option('--email <email>', 'the email address')
    .action(async (options: { login: string; email?: string }) => {
      const { id } = await withAdmin((admin) =>
        admin.createUser({
          login: options.login,
          ...(options.email === undefined ? {} : { email: options.email }),
        }),
      );
      io.out(`Created user ${options.login} with id ${id}.\n`);
    });
  for (const [name, verb] of [
    ['assign', 'Give a user a role.'],
    ['unassign', 'Take a role from a user.'],
  ] as const) {
    users
      .command(name)
      .description(verb)
      .requiredOption('--login <login>', 'the user')
      .requiredOption('--role <role>', 'the role')
      .action(async (options: { login: string; role: string }) => {
        await withAdmin((admin) =>
          name === 'assign'
            ? admin.assignRole(options.login, options.role)
            : admin.unassignRole(options.login, options.role),
        );
        io.out(
          name === 'assign'
            ? `Gave role ${options.role} to ${options.login}.\n`
            : `Took role ${options.role} from ${options.login}.\n`,
        );
      });
  }

  const roles = program.command('roles').description('Roles: list, create.');
  roles
    .command('list', { isDefault: true })
    .description('List roles with their folder rights.')
    .option('--json', 'one JSON record per line')
    .action(async (options: { json?: boolean }) => {
      const found = await withAdmin((admin) => admin.listRoles());
      list(
        io,
        options.json,
        found.map((r) => ({
          id: r.id,
          name: r.name,
          rights: r.rights.map((x) => `${x.folderId}:${x.access}`).join(' '),
        })),
        found,
      );
    });
  roles
    .command('create')
    .description('Create a role.')
    .requiredOption('--name <name>', 'the role name')
    .action(async (options: { name: string }) => {
      const { id } = await withAdmin((admin) => admin.createRole({ name: options.name }));
      io.out(`Created role ${options.name} with id ${id}.\n`);
    });

  program
    .command('grant')
    .description("Set a role's right on a folder.")
    .requiredOption('--role <role>', 'the role')
    .requiredOption('--folder <id>', 'the folder id', positiveInteger('--folder', Number.MAX_SAFE_INTEGER))
    .requiredOption('--access <right>', `the right: ${ACCESS_TYPES.join(', ')}`, accessType)
    .action(async (options: { role: string; folder: number; access: GrantableRight }) => {
      await withAdmin((admin) => admin.grant(options.role, options.folder, options.access));
      io.out(`Role ${options.role} has ${options.access} on folder ${options.folder}.\n`);
    });
  program
    .command('revoke')
    .description("Remove a role's right on a folder.")
    .requiredOption('--role <role>', 'the role')
    .requiredOption('--folder <id>', 'the folder id', positiveInteger('--folder', Number.MAX_SAFE_INTEGER))
    .action(async (options: { role: string; folder: number }) => {
      await withAdmin((admin) => admin.revoke(options.role, options.folder));
      io.out(`Role ${options.role} has no right on folder ${options.folder} any more.\n`);
    });

  program
    .command('audit')
    .description('Show the audit log, newest first.')
    .option('--limit <n>', 'how many records (1 to 999999)', positiveInteger('--limit', 999_999), 50)
    .option('--action <operation>', 'only this action, e.g. add/item or admin/grant')
    .option('--json', 'one JSON record per line')
    .action(async (options: { limit: number; action?: string; json?: boolean }) => {
      const entries = await withAdmin((admin) =>
        admin.listAudit({ limit: options.limit, action: options.action }),
      );
      list(
        io,
        options.json,
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
        entries,
      );
    });

  program
    .command('import')
    .description(
      'Copy a vault that speaks the API (TeamPass, another Vaultline server) into this one: the folders and rights of the given logins, their items and attachments. A re-run adds only what is new.',
    )
    .requiredOption('--from <url>', "the source's base URL (before /api/index.php)")
    .option(
      '--api-key <key>',
      "the source's API key (or VAULTLINE_IMPORT_API_KEY, kept out of the process list)",
    )
    .option(
      '--login <login>',
      'copy the folders this login sees, and its rights (repeatable, at least one)',
      collect,
      [],
    )
    .option('--dry-run', 'read the source and report what would be added, without writing')
    .option('--json', 'print the summary as JSON')
    .action(
      async (
        options: { from: string; apiKey?: string; login: string[]; dryRun?: boolean; json?: boolean },
        command: Command,
      ) => {
        const apiKey = options.apiKey ?? process.env.VAULTLINE_IMPORT_API_KEY;
        if (apiKey === undefined || apiKey === '')
          command.error('error: missing the source key: pass --api-key or set VAULTLINE_IMPORT_API_KEY', {
            exitCode: EXIT.usage,
          });
        if (options.login.length === 0)
          command.error(
            'error: give at least one --login: the API lists folders per user only, so the logins decide what is copied',
            { exitCode: EXIT.usage },
          );
        const [{ default: cliProgress }, { importVault }] = await Promise.all([
          import('cli-progress'),
          import('./import/import-vault.ts'),
        ]);
        const bar =
          process.stderr.isTTY && !options.json
            ? new cliProgress.SingleBar(
                { format: '{phase} [{bar}] {value}/{total}', stream: process.stderr, hideCursor: true },
                cliProgress.Presets.shades_classic,
              )
            : undefined;
        let phase = '';
        try {
          const summary = await withVault((vault) =>
            importVault(vault, operatorActor(operator().name, 'import'), {
              from: options.from,
              apiKey,
              logins: options.login,
              dryRun: options.dryRun === true,
              onProgress: (next, done, total) => {
                if (!bar) return;
                if (next !== phase) {
                  if (phase !== '') bar.stop();
                  phase = next;
                  bar.start(total, done, { phase: next.padEnd(7) });
                } else bar.update(done);
              },
            }),
          );
          bar?.stop();
          io.out(options.json ? `${JSON.stringify(summary)}\n` : importReport(summary));
        } catch (error) {
          bar?.stop();
          throw error;
        }
      },
    );

  program
    .command('rotate-master-key')
    .description('Re-encrypt all secrets under a new master key (server stopped).')
    .action(async () => {
      const cfg = config(resolve('.data/vault'));
      const { rotateMasterKey } = await import('./rotate-master-key.ts');
      const result = await rotateMasterKey(operator(), {
        dataDir: cfg.dataDir,
        databaseUrl: cfg.databaseUrl,
        masterKey: cfg.masterKey,
        cacheTtlMs: 0,
      });
      io.out(`Re-encrypted ${result.items} passwords and ${result.files} attachments.\n`);
      if (result.newKey) {
        io.out(`New master key (set VAULTLINE_MASTER_KEY to it before the next start):\n${result.newKey}\n`);
      }
    });

  return { program, keepAlive: () => keepAlive };
}

/**
 * Runs the command line.
 *
 * @param argv The arguments after the script.
 * @param io Where output goes.
 * @returns The exit code, or -1 when a server keeps running.
 */
async function main(argv: string[], io: CliIo = PROCESS_IO): Promise<number> {
  const { program, keepAlive } = createProgram(io);
  if (argv.length === 0) {
    program.outputHelp({ error: true });
    return EXIT.usage;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return keepAlive() ? -1 : EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // commander has printed the message or the help already.
      return error.code === 'commander.helpDisplayed' || error.code === 'commander.version'
        ? EXIT.ok
        : EXIT.usage;
    }
    io.err(`error: ${printable(error instanceof Error ? error.message : String(error))}\n`);
    return EXIT.error;
  }
}

const code = await main(process.argv.slice(2));
if (code >= 0) process.exitCode = code;
