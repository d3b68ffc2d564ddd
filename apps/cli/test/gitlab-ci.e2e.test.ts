import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createVaultClient } from '@vaultline/protocol';
import {
  startTestIssuer,
  startTestVault,
  type TestIssuer,
  type TestVault,
} from '@vaultline/vault-server/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { CLI } from './support/cli.ts';
import { startsTimeout } from './support/timing.ts';

vi.setConfig({ testTimeout: startsTimeout(3) });

const TEMPLATE = new URL('../../../docs/ci/gitlab-ci.yml', import.meta.url);
const DB = 'Pg-Prod-Gitlab-%-Zq9\nsecond line';
const TOKEN = 'tok_gitlab_7f6e5d4c3b2a';

interface Job {
  extends?: string;
  id_tokens?: Record<string, { aud: string }>;
  variables?: Record<string, string>;
  before_script?: string[];
  script?: string[];
}

let vault: TestVault;
let issuer: TestIssuer;
let dir: string;
let key: string;

beforeAll(async () => {
  vault = await startTestVault();
  const admin = createVaultClient({ baseUrl: vault.url, auth: vault.adminKey });
  await vault.admin.createUser({ login: 'ci' });
  await vault.admin.createRole({ name: 'deploy' });
  await vault.admin.assignRole('ci', 'deploy');
  const { id: folderId } = await admin.folders.create({ title: 'Prod', complexityLevel: 0, parentId: 0 });
  await vault.admin.grant('deploy', folderId, 'R');
  await admin.items.create({ label: 'DB', password: DB, folderId });
  await admin.items.create({ label: 'api token', password: TOKEN, folderId });
  key = await vault.admin.createKey({ label: 'gitlab', login: 'ci' });
  issuer = await startTestIssuer();
  await vault.server.vault
    .adminAs({ principal: { kind: 'admin', keyLabel: '' }, name: 'test', keyLabel: '', address: 'test' })
    .addTrustPolicy({
      name: 'gitlab-deploy',
      issuer: issuer.url,
      audience: 'https://vault.example.com',
      claims: { project_path: 'acme/api', ref_protected: 'true' },
      login: 'ci',
    });
  dir = await mkdtemp(join(tmpdir(), 'vaultline-gitlab-'));
});
afterAll(async () => {
  await vault?.close();
  await issuer?.close();
  await rm(dir, { recursive: true, force: true });
});

function bash(
  line: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-eo', 'pipefail', '-c', line], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** The before_script's install, replaced by the built CLI on the PATH; and the job's own command. */
async function installCli(): Promise<string> {
  const bin = join(dir, 'bin');
  await mkdir(bin, { recursive: true });
  await writeFile(join(bin, 'vaultline'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  await chmod(join(bin, 'vaultline'), 0o755);
  // The job's own command: records what it got, and prints it (which the masking must catch).
  await writeFile(
    join(dir, 'deploy.sh'),
    '#!/bin/sh\nprintf %s "$DB_PASS" > db.out\nprintf %s "$API_TOKEN" > token.out\nenv | grep -c "^VAULTLINE_API_KEY=" > key.out\necho "deploying with $API_TOKEN"\n',
  );
  await chmod(join(dir, 'deploy.sh'), 0o755);
  return bin;
}

describe('the GitLab CI job template', () => {
  it("runs the deploy job's script lines as written, the values reaching only its command, masked", async () => {
    const jobs = parse(await readFile(TEMPLATE, 'utf8')) as Record<string, Job>;
    const job = jobs.deploy!;
    const template = jobs[job.extends!]!;
    expect(template.before_script).toEqual(['npm install --global --no-fund --no-audit @vaultline/cli@0']);
    const bin = await installCli();
    // GitLab's environment: the CI/CD variables, then the template's and the job's variables.
    const env = {
      PATH: `${bin}:${process.env.PATH}`,
      HOME: dir,
      CI: 'true',
      VAULTLINE_URL: vault.url,
      VAULTLINE_API_KEY: key,
      VAULTLINE_LOGIN: 'ci',
      ...template.variables,
      ...job.variables,
    };
    expect(job.variables).toEqual({
      DB_PASS: 'vaultline://Prod/DB/password',
      API_TOKEN: 'vaultline://Prod/api%20token/password',
    });
    for (const line of job.script!) {
      // As a GitLab runner runs a script line: bash, in the project directory (the vault answers
      // from this process, so the line runs asynchronously).
      const result = await bash(line, dir, env);
      expect({ line, status: result.status, stderr: result.stderr }).toEqual({ line, status: 0, stderr: '' });
      expect(result.stdout).toBe('deploying with <concealed by vaultline>\n');
      for (const secret of [DB, TOKEN, key]) expect(result.stdout + result.stderr).not.toContain(secret);
    }
    expect(await readFile(join(dir, 'db.out'), 'utf8')).toBe(DB);
    expect(await readFile(join(dir, 'token.out'), 'utf8')).toBe(TOKEN);
    expect(await readFile(join(dir, 'key.out'), 'utf8')).toBe('0\n');
  });

  it("runs the keyless job with the job's id_token and no stored key", async () => {
    const jobs = parse(await readFile(TEMPLATE, 'utf8')) as Record<string, Job>;
    const job = jobs['deploy-keyless']!;
    const template = jobs[job.extends!]!;
    const [name, { aud }] = Object.entries(job.id_tokens ?? {})[0]!;
    expect(name).toBe('VAULTLINE_OIDC_TOKEN');
    // What GitLab puts in the variable: a token for the audience, with the job's claims.
    const token = await issuer.sign({
      aud,
      sub: 'project_path:acme/api:ref_type:branch:ref:main',
      project_path: 'acme/api',
      pipeline_id: '4242',
      job_id: '99',
      ref: 'main',
      ref_protected: 'true',
    });
    const bin = await installCli();
    const env = {
      PATH: `${bin}:${process.env.PATH}`,
      HOME: dir,
      CI: 'true',
      VAULTLINE_URL: vault.url,
      [name]: token,
      ...template.variables,
      ...job.variables,
    };
    for (const line of job.script!) {
      const result = await bash(line, dir, env);
      expect({ line, status: result.status, stderr: result.stderr }).toEqual({ line, status: 0, stderr: '' });
      expect(result.stdout).toBe('deploying with <concealed by vaultline>\n');
      for (const secret of [DB, TOKEN, token]) expect(result.stdout + result.stderr).not.toContain(secret);
    }
    expect(await readFile(join(dir, 'db.out'), 'utf8')).toBe(DB);
  });
});
