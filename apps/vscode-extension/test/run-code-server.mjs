// Runs the Mocha suite in a real VS Code extension host (code-server + Chromium), then the UI check
// and `vsce package`. `--bench` runs the benchmarks instead. Exits non-zero on any failure and
// ends with the line `N passed, N failed`.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format } from 'node:util';
import { inflateRawSync } from 'node:zlib';
import { startBenchmark } from '@vaultline/repo/benchmarks';
import { startCodeServer } from './code-server.mjs';
import { startCorsRelay } from './cors-relay.mjs';
import { scanForSecrets } from './secret-scan.mjs';
import { seedReplay } from './seed-replay.mjs';
import { seedTeamPass3 } from './seed-teampass3.mjs';
import { seedVault } from './seed-vault.mjs';
import { uiCheck } from './ui-check.mjs';
import { browserCacheCheck, webCheck } from './web-check.mjs';

const bench = process.argv.includes('--bench');
// VAULTLINE_CHECKS=suite,ui,web,scan,vsix runs only those parts (all by default): for iterating.
const checks = new Set((process.env.VAULTLINE_CHECKS ?? 'suite,ui,web,scan,vsix').split(','));
// Workbench and built-in extension chatter that the page forwards along with the suite's output.
const NOISE =
  /^(\[(AgentHost|ChatModelSelection|AgentHostChannel)\]|Ignoring fetching additional builtin|Updating additional builtin|\s*$)/;
// How long a host that exited without a summary is given for the page to forward its last lines:
// only a run that already failed (no summary at all) waits it out.
const HOST_LAST_LINES_MS = 30_000;
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// Screenshots go to the git-ignored test-results/ folder: a test run leaves the tree as it was.
// `--docs-images` (`pnpm --filter vaultline-vscode docs:images`) copies them over docs/images/
// after a passing run, the one way the docs' pictures are refreshed.
const docsImages = process.argv.includes('--docs-images');
const shots = resolve(root, 'test-results/screenshots');
const screenshot = join(shots, 'vscode-extension.png');
const presentationShot = join(shots, 'vscode-presentation-mode.png');
const walkthroughShot = join(shots, 'vscode-walkthrough.png');
const webShot = join(shots, 'vscode-web.png');
mkdirSync(shots, { recursive: true });
const codeServerBin =
  process.env.CODE_SERVER_BIN ??
  resolve(root, '../../.tools/code-server-4.139.1/node_modules/.bin/code-server');
if (!codeServerBin || !existsSync(codeServerBin)) {
  console.error(
    'CODE_SERVER_BIN must point at code-server 4.139.1 (./run.sh test installs it into .tools/; see apps/vscode-extension/DEVELOPMENT.md).',
  );
  process.exit(1);
}
const started = Date.now();
let passed = 0;
let failed = 0;
// The extension host's benchmarks print `BENCH_FIGURE <json>` lines; a passing run records them.
const benchRun = bench
  ? startBenchmark({
      id: 'vscode-extension-host',
      package: 'vaultline-vscode',
      script: 'test/suite/bench.ts',
      command: 'pnpm --filter vaultline-vscode bench',
    })
  : undefined;
const figures = [];

const sh = (command, args) => spawnSync(command, args, { cwd: root, stdio: 'inherit' }).status === 0;

// A test run leaves the tree clean: every screenshot it takes lands where git ignores it (issue #31).
if (!docsImages) {
  const tracked = [screenshot, presentationShot, walkthroughShot, webShot].filter(
    (shot) => spawnSync('git', ['check-ignore', '-q', shot], { cwd: root }).status !== 0,
  );
  for (const shot of tracked) console.log(`screenshot outside an ignored folder: ${shot}`);
  if (tracked.length === 0) passed += 1;
  else failed += 1;
}
if (!sh(process.execPath, ['esbuild.config.mjs'])) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}

const { vault, fixture } = await seedVault({ bulkCount: bench ? 10_000 : 0 });
console.log(`vault seeded at ${fixture.url} in ${Date.now() - started} ms`);
// The search and attachment tests run again against TeamPass's API, through the same extension code.
const replay = await seedReplay(fixture);
fixture.teampass = replay.teampass;
// The shared tests run a third time against TeamPass 3's REST API (the fake, over HTTP).
const teampass3 = await seedTeamPass3(fixture, { bulkCount: bench ? 10_000 : 0 });
fixture.teampass3 = teampass3.teampass3;
const tmp = mkdtempSync(join(tmpdir(), 'vaultline-vscode-'));
const workspace = join(tmp, 'ws');
mkdirSync(workspace);
fixture.userDataDir = join(tmp, 'ud');
const server = await startCodeServer({
  bin: codeServerBin,
  tmp,
  workspace,
  env: { VAULTLINE_TEST_FIXTURE: JSON.stringify(fixture) },
});
console.log(`code-server up on ${server.host} after ${Date.now() - started} ms`);

try {
  if (bench || checks.has('suite')) {
    let exit;
    const finished = new Promise((resolvePromise) => {
      exit = resolvePromise;
    });
    let summary;
    let hostExited = false;
    const suitePage = await server.openWorkbench({
      extensionPath: root,
      testsPath: join(root, 'dist/test/suite.cjs'),
      onLog: (args) => {
        const line = format(...args);
        const match = /^(\d+) passed, (\d+) failed$/.exec(line.trim());
        const figure = /^BENCH_FIGURE (\{.*\})$/.exec(line.trim());
        if (figure) figures.push(JSON.parse(figure[1]));
        else if (match) {
          summary = { passed: Number(match[1]), failed: Number(match[2]) };
          // The host may be gone already: its last line, forwarded by the page, came after.
          if (hostExited) exit(0);
        } else if (process.env.VERBOSE || !NOISE.test(line)) console.log(line);
      },
      onExit: (code) => exit(code),
    });
    // Mocha bounds every test and hook; what it cannot see is a workbench that died: wait for
    // the suite's end or the page's, not for a time guessed for a loaded machine.
    suitePage.on('crash', () => exit('the workbench page crashed'));
    suitePage.on('close', () => exit('the workbench page closed'));
    // The host's exit reaches us from the server's output, its last lines through the page: the
    // summary may follow the exit. Without it, the exit is the end once the page has had its
    // chance to deliver it (the host crashed, or the suite never wrote one).
    server.onOutput((text) => {
      if (!/Extension Host Process exited/.test(text) || hostExited) return;
      hostExited = true;
      if (summary) exit(0);
      else setTimeout(() => exit('the extension host exited'), HOST_LAST_LINES_MS);
    });
    const code = await finished;
    if (summary) {
      passed += summary.passed;
      failed += summary.failed;
    }
    if (code !== 0 && (!summary || summary.failed === 0)) {
      console.log(`the extension host suite ended with ${code} without a passing summary`);
      failed += 1;
    }
  }

  if (!bench && checks.has('ui')) {
    const page = await server.openWorkbench({ extensionPath: root });
    const failures = await uiCheck(page, {
      folder: 'Infrastructure',
      item: fixture.items.web.label,
      login: fixture.items.web.login,
      reveal: {
        reference: `vaultline://${fixture.items.web.id}/password`,
        value: fixture.items.web.password,
      },
      screenshot,
      presentationShot,
      walkthroughShot,
    }).catch((error) => [String(error?.message ?? error).split('\n')[0]]);
    for (const failure of failures) console.log(`UI check failure: ${failure}`);
    if (failures.length === 0) passed += 1;
    else failed += 1;
  }

  if (!bench && checks.has('web')) {
    // The web build in the web worker extension host (VS Code for the Web).
    const relay = await startCorsRelay(fixture.url, `http://${server.host}`);
    try {
      const webFailures = await webCheck(server, {
        tmp,
        workspace,
        extensionPath: root,
        apiKey: fixture.keys.alice,
        item: fixture.items.db,
        screenshot: webShot,
        relayUrl: relay.url,
        downUrl: fixture.downUrl,
        teampass3: { url: fixture.teampass3.url, ...fixture.teampass3.users.alice },
      }).catch((error) => [String(error?.message ?? error).split('\n')[0]]);
      // The last check in the browser: closed, Chromium writes its cache out to be read.
      await server.closeBrowser();
      webFailures.push(
        ...browserCacheCheck(
          server.browserDataDir,
          server.host,
          Object.values(fixture.items).map((item) => item.password),
        ),
      );
      for (const failure of webFailures) console.log(`web check failure: ${failure}`);
      if (webFailures.length === 0) passed += 1;
      else failed += 1;
    } finally {
      await relay.close();
    }
  }

  // Nothing VS Code wrote may hold a key or a password; the Output channel's log file must exist.
  if (checks.has('scan')) {
    const secrets = [
      ...Object.values(fixture.keys),
      fixture.teampass.key,
      ...Object.values(fixture.items).map((item) => item.password),
      ...Object.values(fixture.detection),
      // TeamPass 3: every user's password and API key, and every session token the fake issued.
      ...Object.values(fixture.teampass3.users).flatMap((user) => [user.password, user.apiKey]),
      ...teampass3.fake.tokens(),
      fixture.teampass3.upstream.apiKey,
    ];
    const scan = scanForSecrets(tmp, secrets);
    const outputLogs = scan.files.filter((file) => /Vaultline\.log$/.test(file));
    console.log(
      `secret scan: ${scan.files.length} files, Output channel logs: ${outputLogs.join(', ') || 'none'}`,
    );
    for (const leak of scan.leaks) console.log(`secret scan: LEAK in ${leak}`);
    // The scanner must see what the channel logged, or a clean result would mean nothing.
    // (legacy reads, and TeamPass 3's sign-ins and folder reads)
    const shown = ['readUserFolders 200', 'writableFolders 200', 'authorize 200'].filter((line) =>
      scanForSecrets(tmp, [line]).leaks.some((leak) => /Vaultline\.log/.test(leak)),
    );
    if (shown.length < 3)
      console.log(
        `secret scan: the Output channel log does not show the requests (only ${shown.join(', ') || 'none'})`,
      );
    console.log(
      `secret scan: ${secrets.length} secrets looked for, ${teampass3.fake.tokens().length} of them session tokens`,
    );
    if (scan.leaks.length === 0 && outputLogs.length > 0 && shown.length === 3) passed += 1;
    else failed += 1;
  }
} catch (error) {
  console.error(error);
  failed += 1;
} finally {
  if (failed > 0 || process.env.VERBOSE) console.log(`--- code-server log ---\n${server.log().slice(-3000)}`);
  await server.close();
  await vault.close();
  for (const replayServer of replay.servers) await replayServer.close();
  await teampass3.close();
}

if (!bench && checks.has('vsix')) {
  // The packaged extension: vsce must produce a .vsix from the bundle alone.
  const vsix = join(tmpdir(), `vaultline-vscode-${process.pid}.vsix`);
  const ok = sh(process.execPath, ['scripts/package-vsix.mjs', vsix]);
  // Its page on the Marketplace is the user's README, not this package's DEVELOPMENT.md.
  const readme = ok && existsSync(vsix) ? zipEntry(readFileSync(vsix), 'extension/readme.md') : undefined;
  const userReadme =
    readme?.startsWith('# Vaultline for VS Code\n') === true && !readme.includes('## Development');
  if (ok && existsSync(vsix) && statSync(vsix).size > 0 && userReadme) {
    rmSync(vsix);
    passed += 1;
  } else {
    console.log(
      readme === undefined
        ? 'vsce package did not produce a .vsix with a README'
        : 'the .vsix packs the wrong README',
    );
    failed += 1;
  }
}

if (docsImages) {
  if (failed > 0) console.log('docs images: not copied, the run failed');
  else
    for (const shot of [screenshot, presentationShot, walkthroughShot, webShot]) {
      if (!existsSync(shot)) continue;
      const target = resolve(root, '../../docs/images', basename(shot));
      copyFileSync(shot, target);
      console.log(`docs images: ${target}`);
    }
}
if (benchRun && failed === 0 && figures.length > 0) benchRun.record(figures);
console.log(`run took ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);

/**
 * One file of a zip archive (a .vsix), as text: found through the central directory, which always
 * holds the sizes and the offset of the entry's local header.
 *
 * @param {Buffer} zip The archive.
 * @param {string} name The entry's path.
 * @returns {string | undefined} Its text, or `undefined` when the archive has no such entry.
 */
function zipEntry(zip, name) {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) return undefined;
  let at = zip.readUInt32LE(end + 16);
  for (let i = 0; i < zip.readUInt16LE(end + 10); i++) {
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const skip = nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    if (zip.toString('utf8', at + 46, at + 46 + nameLength) === name) {
      const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
      const data = zip.subarray(start, start + size);
      return (method === 8 ? inflateRawSync(data) : data).toString('utf8');
    }
    at += 46 + skip;
  }
  return undefined;
}
