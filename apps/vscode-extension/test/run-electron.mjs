// Runs the same Mocha suite with @vscode/test-electron, for machines that can download VS Code
// (a laptop, hosted CI). Not usable offline: the code-server runner is the one used here.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runTests } from '@vscode/test-electron';
import { seedVault } from './seed-vault.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
if (spawnSync(process.execPath, ['esbuild.config.mjs'], { cwd: root, stdio: 'inherit' }).status !== 0)
  process.exit(1);

const { vault, fixture } = await seedVault({ bulkCount: process.argv.includes('--bench') ? 10_000 : 0 });
const tmp = mkdtempSync(join(tmpdir(), 'vaultline-electron-'));
const workspace = join(tmp, 'ws');
mkdirSync(workspace);
let code = 1;
try {
  code = await runTests({
    version: process.env.VSCODE_VERSION ?? 'stable',
    extensionDevelopmentPath: root,
    extensionTestsPath: join(root, 'dist/test/suite.cjs'),
    extensionTestsEnv: { VAULTLINE_TEST_FIXTURE: JSON.stringify(fixture) },
    launchArgs: [
      workspace,
      '--disable-extensions',
      '--disable-workspace-trust',
      '--skip-welcome',
      '--user-data-dir',
      join(tmp, 'ud'),
      // No keyring on CI runners: SecretStorage falls back to VS Code's own encryption.
      '--password-store=basic',
    ],
  }).then(
    () => 0,
    (error) => {
      console.error(error);
      return 1;
    },
  );
} finally {
  await vault.close();
  rmSync(tmp, { recursive: true, force: true });
}
process.exit(code);
