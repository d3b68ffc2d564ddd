// Starts code-server (a built VS Code: remote server, web workbench, real Node extension host) and
// opens its workbench in Chromium through playwright-core.
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * @param {{ bin: string, tmp: string, workspace: string, env: Record<string, string> }} options
 */
export async function startCodeServer({ bin, tmp, workspace, env }) {
  mkdirSync(join(tmp, 'ud/User'), { recursive: true });
  writeFileSync(
    join(tmp, 'ud/User/settings.json'),
    JSON.stringify({
      'extensions.autoCheckUpdates': false,
      'extensions.autoUpdate': false,
      'extensions.ignoreRecommendations': true,
      'telemetry.telemetryLevel': 'off',
      'update.mode': 'none',
      'workbench.enableExperiments': false,
      'workbench.startupEditor': 'none',
      'security.workspace.trust.enabled': false,
      'window.restoreWindows': 'none',
      'workbench.editor.restoreViewState': false,
      'files.hotExit': 'off',
      'workbench.editor.empty.hint': 'hidden',
      'workbench.secondarySideBar.defaultVisibility': 'hidden',
      'chat.disableAIFeatures': true,
      'terminal.integrated.enablePersistentSessions': false,
      'workbench.tips.enabled': false,
    }),
  );
  const childEnv = {
    ...process.env,
    ...env,
    TMPDIR: tmp,
    XDG_CONFIG_HOME: join(tmp, 'cfg'),
    XDG_DATA_HOME: join(tmp, 'data'),
    XDG_CACHE_HOME: join(tmp, 'cache'),
    EXTENSIONS_GALLERY: '{}',
  };
  const child = spawn(
    bin,
    [
      '--bind-addr',
      '127.0.0.1:0',
      '--auth',
      'none',
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      '--user-data-dir',
      join(tmp, 'ud'),
      '--extensions-dir',
      join(tmp, 'exts'),
      workspace,
    ],
    { env: childEnv, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  const listeners = new Set();
  const port = await new Promise((resolve, reject) => {
    const onData = (data) => {
      log += data;
      for (const listener of listeners) listener(String(data));
      const match = /HTTP server listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(log);
      if (match) resolve(Number(match[1]));
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`code-server exited early (${code}):\n${log}`)));
    setTimeout(() => reject(new Error(`code-server did not start in 60 s:\n${log}`)), 60_000).unref();
  });
  const host = `127.0.0.1:${port}`;
  const html = await (await fetch(`http://${host}/`)).text();
  const settings = /id="vscode-workbench-web-configuration" data-settings="([^"]*)"/.exec(html)[1];
  const authority =
    JSON.parse(settings.replace(/&quot;/g, '"').replace(/&amp;/g, '&')).remoteAuthority || host;

  // A profile on disk, as a user's browser has: its HTTP cache is what the web check reads.
  const browserDataDir = join(tmp, 'chromium');
  const context = await chromium.launchPersistentContext(browserDataDir, {
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    env: { ...process.env, HOME: tmp, XDG_CONFIG_HOME: join(tmp, 'cfg'), XDG_CACHE_HOME: join(tmp, 'cache') },
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 800 },
  });
  const allowClipboard = (...permissions) =>
    context.grantPermissions(permissions, { origin: `http://${host}` });
  await allowClipboard('clipboard-read', 'clipboard-write');

  return {
    host,
    browserDataDir,
    log: () => log,
    /** Calls `listener` with each piece of code-server's output from now on. */
    onOutput(listener) {
      listeners.add(listener);
    },
    /**
     * Opens the workbench with the extension under development, and the test entry when given.
     * Newer VS Code honours these payload entries in a built product only with the smoke-test
     * driver enabled, so the workbench configuration <meta> is patched before workbench.js reads it.
     */
    async openWorkbench({ extensionPath, testsPath, onLog, onExit }) {
      const page = await context.newPage();
      if (onLog) await page.exposeFunction('codeAutomationLog', (_type, args) => onLog(args || []));
      if (onExit) await page.exposeFunction('codeAutomationExit', (code) => onExit(code));
      await page.addInitScript(() => {
        const patch = (el) => {
          if (el.id !== 'vscode-workbench-web-configuration' || el.dataset.patched) return;
          const cfg = JSON.parse(el.getAttribute('data-settings'));
          cfg.developmentOptions = { ...(cfg.developmentOptions || {}), enableSmokeTestDriver: true };
          el.setAttribute('data-settings', JSON.stringify(cfg));
          el.dataset.patched = '1';
        };
        new MutationObserver((records) => {
          for (const record of records)
            for (const node of record.addedNodes) if (node.nodeType === 1) patch(node);
        }).observe(document, { childList: true, subtree: true });
      });
      page.on('pageerror', (error) => console.log('[pageerror]', error.message));
      if (process.env.VERBOSE)
        page.on('console', (m) => console.log('[console]', m.type(), m.text().slice(0, 400)));
      const payload = [
        ['extensionDevelopmentPath', `vscode-remote://${authority}${extensionPath}`],
        ['skipWelcome', 'true'],
      ];
      if (testsPath) payload.push(['extensionTestsPath', `vscode-remote://${authority}${testsPath}`]);
      await page.goto(
        `http://${host}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`,
      );
      return page;
    },
    /** Lets the workbench read the clipboard, or only write it, as a browser that never asked. */
    async allowClipboardRead(allowed) {
      await context.clearPermissions();
      await (allowed
        ? allowClipboard('clipboard-read', 'clipboard-write')
        : allowClipboard('clipboard-write'));
    },
    /** Closes Chromium, which writes out what its cache still holds in memory. */
    async closeBrowser() {
      await context.close().catch(() => {});
    },
    async close() {
      await context.close().catch(() => {});
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {}
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/**
 * Runs a VS Code command by its exact palette label, then lets the workbench settle.
 *
 * @param page The playwright page of the workbench.
 * @param label The command's label in the palette.
 * @param settleMs How long to wait after the click.
 */
export async function runCommand(page, label, settleMs = 300) {
  // While the workbench is still settling (editors restored, extensions activating) the palette can
  // close again under the test: try again, a bounded number of times.
  for (let attempt = 1; ; attempt++) {
    try {
      await page.keyboard.press('F1');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ timeout: 15_000 });
      await input.fill(`>${label}`, { timeout: 10_000 });
      const row = page.locator('.quick-input-list .monaco-list-row', { hasText: label }).first();
      await row.waitFor({ timeout: 15_000 });
      await row.click({ timeout: 10_000 });
      break;
    } catch (error) {
      if (attempt >= 3) throw error;
      await page.keyboard.press('Escape');
      await page.waitForTimeout(1000);
    }
  }
  await page.waitForTimeout(settleMs);
}
