/**
 * The container image of the server, built and run with podman on this machine. Registry images
 * cannot be pulled here, so the two base images of the Containerfile are stood in for: the runtime
 * base by an image made FROM scratch of this machine's Node binary and the C libraries it links
 * (what a distroless Node image holds), and the server's build stage by `pnpm deploy` run here
 * (its output is what that stage's last step makes). The runtime stages are the Containerfile's
 * own, line for line: their user, environment, health check and entry point are what is tested.
 * The Containerfile's targets and compose.yaml are also checked as text (non-root, health check,
 * no secret in a build argument or layer).
 */

import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chown, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { startPostgresCluster } from '@vaultline/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const execute = promisify(execFile);

/** The end of a command's output: what a failure shows of it. */
const tail = (text: string) => (text.length > 8_000 ? `…${text.slice(-8_000)}` : text);

/**
 * Runs a command with no time limit of its own (the hook's bounds the whole build, which takes
 * under a minute alone and a few under load); a failure's error says the command and carries its
 * output and exit code.
 */
async function run(
  file: string,
  args: readonly string[],
  options: { cwd?: string; signal?: AbortSignal | undefined } = {},
): Promise<{ stdout: string; stderr: string }> {
  try {
    const running = execute(file, args, { ...options, maxBuffer: 64 * 1024 * 1024, killSignal: 'SIGKILL' });
    // Nothing to read: a command that would wait on its standard input (a prompt) ends instead.
    running.child.stdin?.end();
    return await running;
  } catch (error) {
    const { code, stdout = '', stderr = '' } = error as { code?: number; stdout?: string; stderr?: string };
    const shown = new Error(
      `${file} ${args.join(' ')} failed: ${(error as Error).message.split('\n')[0]}\n--- stdout\n${tail(stdout)}\n--- stderr\n${tail(stderr)}`,
      { cause: error },
    );
    throw Object.assign(shown, { code, stdout, stderr });
  }
}
const ROOT = join(import.meta.dirname, '../../..');
const CONTAINERFILE = join(ROOT, 'Containerfile');
/** Names that hold secrets: none may be a build argument or an image's environment. */
const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|DATABASE_URL|CREDENTIALS?)(?![A-Z])/i;

/** The instructions of a Containerfile, continuation lines joined, comments dropped. */
function instructions(text: string): string[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** The instructions of a target: its stage after the stages it is built FROM, if any. */
function targetStages(lines: readonly string[], name: string): string[] {
  const starts = lines.flatMap((line, at) => (/^FROM\s/i.test(line) ? [at] : []));
  const start = starts.find((at) => new RegExp(`\\sAS\\s+${name}$`, 'i').test(lines[at]!));
  if (start === undefined) throw new Error(`No stage ${name}.`);
  const own = lines.slice(start, starts.find((at) => at > start) ?? lines.length);
  const base = /^FROM\s+(\S+)/i.exec(own[0]!)![1]!;
  return starts.some((at) => lines[at]!.endsWith(` AS ${base}`))
    ? [...targetStages(lines, base), ...own]
    : own;
}

/** The text of one stage, from its FROM line to the next. */
function stageText(text: string, from: string): string {
  const stage = text.split(/\n(?=FROM\s)/).find((part) => part.startsWith(from));
  if (stage === undefined) throw new Error(`No stage starting ${from}.`);
  return stage;
}

describe('the Containerfile and compose.yaml, read', () => {
  it.each([
    ['vault-server', '/readyz'],
    ['slack-bot', '/healthz'],
  ])(
    '%s: built in a stage of its own, run non-root with a health check, no secret in an argument or the environment',
    async (target, health) => {
      const lines = instructions(await readFile(CONTAINERFILE, 'utf8'));
      // Its build stage shares the workspace stage with the other app's.
      expect(targetStages(lines, `build-${target}`)[0]).toMatch(/^FROM \$\{NODE_IMAGE\} AS workspace$/);
      const stage = targetStages(lines, target);
      expect(stage[0]).toMatch(/^FROM \$\{RUNTIME_IMAGE\} AS runtime$/);
      expect(stage.filter((line) => /^USER\s/i.test(line))).toEqual(['USER 65532:65532']);
      expect(stage.filter((line) => /^HEALTHCHECK\s/i.test(line))).toEqual([expect.stringContaining(health)]);
      // The runtime stages take only the app's build output: no source, no .env, no secrets.
      const copies = stage.filter((line) => /^(COPY|ADD)\s/i.test(line));
      expect(copies).toEqual([`COPY --from=build-${target} /out /app`]);
      expect(stage.some((line) => /^RUN\s/i.test(line))).toBe(false);
      for (const line of lines.filter((l) => /^(ARG|ENV)\s/i.test(l))) {
        const names = [
          ...line.replace(/^(ARG|ENV)\s+/i, '').matchAll(/(?:^|\s)([A-Za-z_][A-Za-z0-9_]*)(?==|\s|$)/g),
        ].map((m) => m[1]!);
        expect(names.length, line).toBeGreaterThan(0);
        for (const name of names) expect(name, line).not.toMatch(SECRET_NAME);
      }
    },
  );

  it('keeps secrets, installed modules and local data out of the build context', async () => {
    for (const name of ['.containerignore', '.dockerignore']) {
      const ignored = (await readFile(join(ROOT, name), 'utf8')).split('\n');
      for (const pattern of ['**/node_modules', '**/dist', '.data', '**/*.env', '.env', '.tools'])
        expect(ignored, `${name} ${pattern}`).toContain(pattern);
    }
  });

  it('compose.yaml: PostgreSQL, the server and the bot, hardened, every secret from the environment', async () => {
    // Compose reads YAML merge keys (<<: *hardened).
    const compose = parse(await readFile(join(ROOT, 'compose.yaml'), 'utf8'), { merge: true }) as {
      services: Record<string, Record<string, unknown>>;
    };
    expect(Object.keys(compose.services).sort()).toEqual(['bot', 'postgres', 'server']);
    for (const [name, target] of [
      ['server', 'vault-server'],
      ['bot', 'slack-bot'],
    ]) {
      const service = compose.services[name!]!;
      expect(service).toMatchObject({ read_only: true, user: '65532:65532', cap_drop: ['ALL'] });
      expect(service.build).toEqual({ context: '.', dockerfile: 'Containerfile', target });
    }
    for (const [name, service] of Object.entries(compose.services)) {
      for (const [variable, value] of Object.entries((service.environment ?? {}) as Record<string, string>)) {
        // A secret's value is the environment's (${VAR:?…}), never written here.
        if (SECRET_NAME.test(variable))
          expect(String(value), `${name} ${variable}`).toMatch(/\$\{[A-Z_]+:\?[^}]+\}/);
      }
    }
    expect(compose.services.server!.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
  });
});

/** podman with the settings this kind of machine needs: runc where crun cannot use its cgroups. */
async function podman(
  args: readonly string[],
  signal?: AbortSignal,
): Promise<{ stdout: string; stderr: string }> {
  return run('podman', [...(await runtime), '--cgroup-manager', 'cgroupfs', ...args], { signal });
}

/** runc where the machine has it: looked up once. */
const runtime = execute('sh', ['-c', 'command -v runc']).then(
  () => ['--runtime', 'runc'],
  () => [],
);

/** Limits lowered (not raised) for the container: permitted even without CAP_SYS_RESOURCE. */
const LIMITS = ['--ulimit', 'nofile=4096:4096', '--ulimit', 'nproc=4096:4096'];

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

describe('the server image, built and run with podman', () => {
  const tag = `${process.pid}-${Date.now()}`;
  const runtimeImage = `localhost/vaultline-test-runtime:${tag}`;
  const serverImage = `localhost/vaultline-test-server:${tag}`;
  const container = `vaultline-test-${tag}`;
  let work: string;
  // Ends what the build still runs when the suite ends early (its hook out of time): no command
  // outlives the test.
  const building = new AbortController();
  const { signal } = building;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'vaultline-image-'));
    // The runtime base: Node and the libraries it links, a passwd naming uid 65532, FROM scratch.
    const base = join(work, 'base');
    const node = process.execPath;
    // Where distroless Node images keep it.
    await mkdir(join(base, 'root/nodejs/bin'), { recursive: true });
    await cp(node, join(base, 'root/nodejs/bin/node'));
    const { stdout: linked } = await run('ldd', [node], { signal });
    for (const match of linked.matchAll(/(\/\S+\.so[^\s]*)/g)) {
      const lib = match[1]!;
      await mkdir(join(base, 'root', dirname(lib)), { recursive: true });
      await cp(lib, join(base, 'root', lib), { dereference: true });
    }
    await mkdir(join(base, 'root/etc'), { recursive: true });
    await writeFile(
      join(base, 'root/etc/passwd'),
      'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n',
    );
    await writeFile(join(base, 'Containerfile'), 'FROM scratch\nCOPY root/ /\n');
    await podman(['build', '--pull=never', '--layers=false', '-q', '-t', runtimeImage, base], signal);
    // The build stage's output, made here: the server and its production dependencies.
    const context = join(work, 'context');
    await mkdir(context);
    // From the store the workspace's install filled: never the registry where pnpm's metadata cache
    // answers (the resolution of other platforms' optional packages would otherwise ask it, and
    // retry without end when it cannot be reached). A fresh machine's install from the lockfile
    // leaves that cache empty: then the registry is asked once for what is missing.
    const deploy = (network: '--offline' | '--prefer-offline') =>
      run(
        'pnpm',
        [
          '--filter',
          '@vaultline/vault-server',
          'deploy',
          '--prod',
          '--legacy',
          network,
          join(context, 'out'),
        ],
        { cwd: ROOT, signal },
      );
    await deploy('--offline').catch(async (error: unknown) => {
      if (!String((error as Error).message).includes('ERR_PNPM_NO_OFFLINE_META')) throw error;
      await rm(join(context, 'out'), { recursive: true, force: true });
      await deploy('--prefer-offline');
    });
    // The Containerfile's runtime stages, as they are, after a build stage holding that output.
    const text = await readFile(CONTAINERFILE, 'utf8');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a Containerfile's variable, not JavaScript's.
    const runtimeStages = `${stageText(text, 'FROM ${RUNTIME_IMAGE} AS runtime')}\n${stageText(text, 'FROM runtime AS vault-server')}`;
    await writeFile(
      join(context, 'Containerfile'),
      `ARG RUNTIME_IMAGE\nFROM scratch AS build-vault-server\nCOPY out /out\n\n${runtimeStages}`,
    );
    await podman(
      [
        'build',
        '--pull=never',
        // No image is left of the stand-in build stage.
        '--layers=false',
        '--format',
        'docker',
        '-q',
        '--build-arg',
        `RUNTIME_IMAGE=${runtimeImage}`,
        '--target',
        'vault-server',
        '-t',
        serverImage,
        context,
      ],
      signal,
    );
  }, 600_000);

  afterAll(async () => {
    building.abort();
    await podman(['rm', '--force', '--ignore', container]).catch(() => undefined);
    await podman(['rmi', '--force', serverImage, runtimeImage]).catch(() => undefined);
    if (work) await rm(work, { recursive: true, force: true });
  }, 120_000);

  it('runs as uid 65532 on a read-only root filesystem, answers /readyz and passes its health check', async () => {
    const data = join(work, 'data');
    await mkdir(data);
    await chown(data, 65532, 65532);
    const port = await freePort();
    await podman([
      'run',
      '--detach',
      '--name',
      container,
      '--read-only',
      '--network',
      'host',
      ...LIMITS,
      '--env',
      'VAULTLINE_HOST=127.0.0.1',
      '--env',
      `VAULTLINE_PORT=${port}`,
      '--volume',
      `${data}:/data`,
      serverImage,
    ]);
    await readyz(container, port);
    const info = await fetch(`http://127.0.0.1:${port}/api/index.php/info/version`).then((r) => r.json());
    expect(info).toMatchObject({ server: 'vaultline' });
    const { stdout: inspected } = await podman([
      'inspect',
      '--format',
      '{{.Config.User}} {{.HostConfig.ReadonlyRootfs}}',
      container,
    ]);
    expect(inspected.trim()).toBe('65532:65532 true');
    // The image's own HEALTHCHECK, run as the runtime runs it.
    await expect(podman(['healthcheck', 'run', container])).resolves.toBeDefined();
    const { stdout: size } = await podman(['image', 'inspect', '--format', '{{.Size}}', serverImage]);
    console.info(
      `server image: ${(Number(size) / 1024 / 1024).toFixed(0)} MiB (Node binary and libraries, the server and its production dependencies)`,
    );
  }, 180_000);

  /** Waits until the server in a container answers /readyz; the container's logs otherwise. */
  async function readyz(name: string, port: number): Promise<void> {
    const started = Date.now();
    let status = 0;
    while (Date.now() - started < 90_000) {
      status = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (response) => response.status,
        () => 0,
      );
      if (status === 200) return;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const { stdout, stderr } = await podman(['logs', name]);
    expect(status, stdout + stderr).toBe(200);
  }

  it('serves from PostgreSQL with DATABASE_URL and the master key from the environment', async () => {
    const cluster = await startPostgresCluster();
    const name = `${container}-pg`;
    try {
      const port = await freePort();
      await podman([
        'run',
        '--detach',
        '--name',
        name,
        '--read-only',
        '--network',
        'host',
        ...LIMITS,
        '--env',
        'VAULTLINE_HOST=127.0.0.1',
        '--env',
        `VAULTLINE_PORT=${port}`,
        '--env',
        `DATABASE_URL=${await cluster.createDatabase()}`,
        '--env',
        `VAULTLINE_MASTER_KEY=${randomBytes(32).toString('base64')}`,
        serverImage,
      ]);
      await readyz(name, port);
    } finally {
      await podman(['rm', '--force', '--ignore', name]).catch(() => undefined);
      await cluster.stop();
    }
  }, 180_000);

  it('refuses to run as root', async () => {
    const failed = await podman([
      'run',
      '--rm',
      '--read-only',
      '--network',
      'none',
      ...LIMITS,
      '--user',
      '0',
      '--tmpfs',
      '/data',
      serverImage,
    ]).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code?: number; stderr?: string }) => ({ code: error.code, stderr: error.stderr ?? '' }),
    );
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('Refusing to run as root (uid 0)');
  }, 120_000);
});
