// Runs the extension in code-server's web worker extension host (what VS Code for the Web uses):
// the user setting `remote.extensionKind` sends it there, so VS Code loads its `browser` entry
// (dist/web/extension.cjs). Drives it like a user: the request log says which host it runs in,
// the connect dialog's four steps connect to the vault (through a CORS relay: a web worker fetches
// from the workbench's origin), the tree shows the folders with their rights in words, the vault
// without CORS is said to refuse the workbench's origin, naming VAULTLINE_CORS_ORIGINS and that
// origin (the proof that the code runs in the browser), a vault that is down is said to be
// unreachable, a
// reference in a workspace file (a `vscode-remote:` document there) shows its hover, a secret in it
// is offered "Store in Vaultline" on Ctrl+., and the terminal command is not offered.
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCommand } from './code-server.mjs';
import { scanForSecrets } from './secret-scan.mjs';

/** The clipboard's clear delay in the web check, in seconds. */
const CLEAR_SECONDS = 3;

/**
 * @param {{ openWorkbench: Function, host: string }} server The running code-server.
 * @param {{ tmp: string, workspace: string, extensionPath: string, apiKey: string, screenshot: string, relayUrl: string, downUrl: string, item: { id: number, label: string } }} options
 * @returns {Promise<string[]>} The failures; empty when the check passed.
 */
export async function webCheck(
  server,
  { tmp, workspace, extensionPath, apiKey, screenshot, relayUrl, downUrl, item, teampass3 },
) {
  const origin = `http://${server.host}`;
  // A reference through the relayed connection, and a fresh literal (never stored, never saved).
  const envFile = join(workspace, 'web-check.env');
  writeFileSync(
    envFile,
    `DB_PASS=vaultline://web-alice@${item.id}/password\nAPP_PASSWORD=Wc-${randomBytes(6).toString('hex')}Q!\n`,
  );
  const settingsPath = join(tmp, 'ud/User/settings.json');
  const settings = JSON.parse(readFileSync(settingsPath, 'utf8'));
  settings['remote.extensionKind'] = { 'vaultline.vaultline-vscode': ['web'] };
  settings['vaultline.clipboardClearSeconds'] = CLEAR_SECONDS;
  writeFileSync(settingsPath, JSON.stringify(settings));
  const page = await server.openWorkbench({ extensionPath });
  const failures = [];
  try {
    await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
    await page.waitForSelector('.statusbar', { timeout: 60_000 });
    await page.waitForTimeout(3000);
    // The UI check before hid the panel, and VS Code remembers that: show it, then the channel.
    if (!(await page.locator('.part.panel').isVisible()))
      await runCommand(page, 'View: Toggle Panel Visibility');
    const logText = await showLogAndRead(page, /Vaultline activated in[^\n]*?host/);
    console.log(
      `web check: the log says ${JSON.stringify(/Vaultline activated in[^\n]*?host/.exec(logText)?.[0] ?? logText.slice(0, 120))}`,
    );
    const logSaysWeb = /activated in the web worker extension host/.test(logText);

    const steps = await connectThroughDialog(page, ['web-alice', relayUrl, 'alice', apiKey]);
    console.log(`web check: connect dialog titles ${JSON.stringify(steps)}`);
    if (!steps.every((title, i) => title.includes('Connect to a Vault') && title.includes(`${i + 1}/4`)))
      failures.push(`the connect dialog steps are not titled with their count: ${JSON.stringify(steps)}`);
    if (steps.some((title) => title.includes('[error before typing')))
      failures.push(`a connect step shows an error before anything is typed: ${JSON.stringify(steps)}`);
    await runCommand(page, 'Vaultline: Focus on Vault View', 500);
    const row = page.locator('.monaco-list-row', { hasText: /Infrastructure\s*full access/ }).first();
    const connected = await row.waitFor({ timeout: 30_000 }).then(
      () => true,
      () => false,
    );
    const rows = await page.locator('.part.sidebar .monaco-list-row').allTextContents();
    console.log('web check: tree rows', JSON.stringify(rows.map((r) => r.replace(/\s+/g, ' ').trim())));
    if (!connected) failures.push('the web extension did not list the vault folders after connecting');
    // The connections to the vault itself (started without CORS) fail in the browser only: the
    // row must say CORS, the setting and the exact origin to add, not "cannot reach".
    const corsRow = rows.map((text) => text.trim()).find((text) => /^alice: /.test(text)) ?? '';
    const saysCors =
      corsRow.includes(`does not allow requests from ${origin} (CORS)`) &&
      corsRow.includes(`add ${origin} to VAULTLINE_CORS_ORIGINS`);
    if (!saysCors)
      failures.push(`the vault without CORS is not said to refuse ${origin}: ${JSON.stringify(corsRow)}`);
    if (!logSaysWeb && !saysCors) failures.push('the extension did not run in the web worker extension host');

    // TeamPass 3 from the web worker (the fake allows any origin, as TeamPass does): the dialog
    // detects that it signs each user in and asks for the password and API key (Enter on the
    // sign-in method takes the first, "Password and API key"); the view then says once that this
    // vault keeps no attachments.
    const tp3Steps = await connectThroughDialog(page, [
      'web-tp3',
      teampass3.url,
      teampass3.login,
      '',
      teampass3.password,
      teampass3.apiKey,
    ]);
    console.log(`web check: TeamPass 3 connect dialog titles ${JSON.stringify(tp3Steps)}`);
    const counts = tp3Steps.map((title) => /\d+\/\d+/.exec(title)?.[0]);
    if (JSON.stringify(counts) !== JSON.stringify(['1/4', '2/4', '3/6', '4/6', '5/6', '6/6']))
      failures.push(
        `the TeamPass 3 connect dialog did not ask for a password and an API key: ${JSON.stringify(tp3Steps)}`,
      );
    // The suite leaves no other TeamPass 3 connection: this note can only be web-tp3's.
    const note = page
      .locator('.part.sidebar .monaco-list-row', { hasText: 'No attachments on this vault' })
      .first();
    const signedIn = await note.waitFor({ timeout: 30_000 }).then(
      async () => {
        const rows = (await page.locator('.part.sidebar .monaco-list-row').allTextContents()).map((row) =>
          row.replace(/\s+/g, ' ').trim(),
        );
        const root = rows.findIndex((row) => row.startsWith('web-tp3'));
        const notes = rows.filter((row) => row === 'No attachments on this vault').length;
        console.log(`web check: rows of web-tp3 ${JSON.stringify(rows.slice(root, root + 5))}`);
        return (
          root >= 0 &&
          notes === 1 &&
          rows.slice(root + 1).some((row) => /^Infrastructure ?full access/.test(row))
        );
      },
      () => false,
    );
    if (!signedIn) failures.push('the web extension did not load the TeamPass 3 folders after signing in');
    else
      console.log(
        'web check: TeamPass 3 signed in from the web worker; its tree says "No attachments on this vault"',
      );
    // Its folders opened: the answers listing the items (passwords included) pass through the
    // browser, whose cache is read once Chromium is closed (`browserCacheCheck`).
    if (signedIn) {
      await openTreeRow(page, 'web-tp3', /^Infrastructure ?full access/, 'web-frontend');
      await openTreeRow(page, 'web-tp3', /^Databases ?full access/, item.label);
      console.log('web check: the TeamPass 3 folders Infrastructure and Databases opened');
      failures.push(...(await clearWithoutClipboardRead(page, server, item)));
    }

    // A vault that is down is still "cannot reach", not CORS.
    await connectThroughDialog(page, ['web-down', downUrl, 'alice', apiKey]);
    // The error the user is shown is also the Output channel's last line.
    const downText = await showLogAndRead(page, /\[error\] web-down: [^\n]*?\?/);
    console.log(`web check: connecting to a stopped vault says ${JSON.stringify(downText.slice(0, 120))}`);
    if (!/web-down: cannot reach the vault/.test(downText) || /CORS/.test(downText))
      failures.push(`a stopped vault is not said to be unreachable: ${JSON.stringify(downText)}`);
    await page.keyboard.press('Escape');

    // Hover and quick fix in a workspace file: the web worker host's documents are vscode-remote:.
    await page.keyboard.press('Control+P');
    await page.locator('.quick-input-widget input').fill('web-check.env');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'web-check.env' }).first().click();
    // The line's outer span holds its whole text: hover its 20th character (inside the reference).
    const line = page.locator('.editor-instance .view-line', { hasText: 'DB_PASS=vaultline' }).first();
    await line.waitFor({ timeout: 15_000 });
    // The extension has read the document once the secret below is marked: only then does a hover
    // reach its provider, and the line no longer redraws under the mouse.
    await page.locator('.editor-instance .squiggly-warning').first().waitFor({ timeout: 20_000 });
    // Monaco redraws lines (a warning arriving, say): measure again until the span holds still.
    let box = null;
    let length = 1;
    for (let i = 0; i < 20 && !box; i++) {
      const content = line.locator('span').first();
      box = await content.boundingBox().catch(() => null);
      length = ((await content.textContent().catch(() => '')) ?? '').length || 1;
      if (!box) await page.waitForTimeout(250);
    }
    if (!box) throw new Error('the reference line is not on screen');
    const hover = page.locator('.monaco-hover-content', { hasText: item.label }).first();
    // A hover asked while the connection still loads can come back empty: move off and on again
    // (what a user does), a bounded number of times, until the item's hover is there.
    let hovered = false;
    for (let attempt = 1; attempt <= 3 && !hovered; attempt++) {
      await page.mouse.move(0, 0);
      await page.mouse.move(box.x + (box.width / length) * 20, box.y + box.height / 2);
      hovered = await hover.waitFor({ timeout: 10_000 }).then(
        () => true,
        () => false,
      );
    }
    const hoverText = hovered ? ((await hover.textContent()) ?? '') : '';
    console.log(`web check: hover ${JSON.stringify(hoverText.replace(/\s+/g, ' ').slice(0, 160))}`);
    if (!hovered) failures.push('hovering a reference in a vscode-remote document shows no Vaultline hover');
    await page.mouse.move(0, 0);
    await page.keyboard.press('Escape');
    await page
      .locator('.editor-instance .view-line', { hasText: 'APP_PASSWORD=' })
      .first()
      .click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('End');
    await page.keyboard.press('Control+.');
    const store = page.getByText('Store in Vaultline and replace with a reference').first();
    const offeredFix = await store.waitFor({ timeout: 15_000 }).then(
      () => true,
      () => false,
    );
    console.log(
      `web check: Ctrl+. on the secret ${offeredFix ? 'offers' : 'does not offer'} Store in Vaultline`,
    );
    if (!offeredFix)
      failures.push('Ctrl+. on a secret in a vscode-remote document offers no Store in Vaultline');
    await page.keyboard.press('Escape');
    await runCommand(page, 'View: Revert and Close Editor', 500);

    await page.keyboard.press('F1');
    await page.locator('.quick-input-widget input').fill('>Vaultline: Open Terminal with Vault Values');
    await page.waitForTimeout(1000);
    const offered = await page
      .locator('.quick-input-list .monaco-list-row', { hasText: 'Open Terminal with Vault Values' })
      .count();
    await page.keyboard.press('Escape');
    if (offered > 0) failures.push('the web extension offers the terminal with vault values');
  } catch (error) {
    failures.push(String(error?.message ?? error).split('\n')[0]);
  } finally {
    await page.screenshot({ path: screenshot }).catch(() => {});
    rmSync(envFile, { force: true });
  }
  console.log(`web check: ${failures.length === 0 ? 'passed' : 'FAILED'}; screenshot ${screenshot}`);
  return failures;
}

/**
 * Runs "Vaultline: Connect to a Vault" and types one value per step.
 *
 * @returns The steps' titles.
 */
async function connectThroughDialog(page, values) {
  await runCommand(page, 'Vaultline: Connect to a Vault', 500);
  const input = page.locator('.quick-input-widget input');
  const steps = [];
  for (const value of values) {
    await input.waitFor({ timeout: 15_000 });
    await page.waitForTimeout(300);
    const title = ((await page.locator('.quick-input-title').textContent()) ?? '').trim();
    // Nothing typed yet in this step: no error may show (issue #23.7).
    const widget = ((await page.locator('.quick-input-widget').textContent()) ?? '').replace(/\s+/g, ' ');
    const early = /Enter (a name|an http|a login|the API key)[^.]*\./.exec(widget)?.[0];
    steps.push(early ? `${title} [error before typing: ${early}]` : title);
    await input.fill(value);
    await page.waitForTimeout(300);
    await page.keyboard.press('Enter');
    await page.waitForTimeout(700);
  }
  return steps;
}

/**
 * Shows the extension's Output channel ("Vaultline: Show Request Log") and reads what matches in
 * it. The workbench may still be restoring the terminal the earlier checks left (it brings the
 * Terminal view back to the front), so the command is run again, a bounded number of times, until
 * the log is in view.
 *
 * @returns The first match, or '' when the log never showed it.
 */
async function showLogAndRead(page, pattern) {
  for (let attempt = 1; attempt <= 3; attempt++) {
    await runCommand(page, 'Vaultline: Show Request Log', 500);
    const found = await page
      .waitForFunction(
        (source) => {
          // Monaco draws spaces as no-break spaces.
          const text = (document.querySelector('.part.panel .view-lines')?.textContent ?? '').replace(
            /\u00a0/g,
            ' ',
          );
          return new RegExp(source).exec(text)?.[0] ?? false;
        },
        pattern.source,
        { timeout: 8_000 },
      )
      .then((handle) => handle.jsonValue())
      .catch(() => '');
    if (found) return found;
  }
  return '';
}

/**
 * A password copied from the tree while the browser lets the workbench write the clipboard but not
 * read it (a browser that never asked the user): the countdown ends and the clipboard is emptied.
 *
 * @returns The failures.
 */
async function clearWithoutClipboardRead(page, server, item) {
  const failures = [];
  await server.allowClipboardRead(false);
  try {
    const row = await treeRow(page, 'web-tp3', (text) => text.startsWith(item.label));
    await row.hover();
    await row.locator('.action-label[aria-label="Copy Password"]').click();
    const countdown = page.locator('.statusbar', { hasText: /Password clears in \d+s/ });
    await countdown.waitFor({ timeout: 15_000 });
    const toastsText = async () =>
      (
        (await page
          .locator('.notifications-toasts')
          .textContent()
          .catch(() => '')) ?? ''
      ).replace(/\s+/g, ' ');
    const toastsAtCopy = await toastsText();
    // Gone once the clear ran; the wait allows the delay and the workbench's own pace.
    const ended = await page
      .waitForFunction(
        () => !/clears in \d+s/.test(document.querySelector('.statusbar')?.textContent ?? ''),
        null,
        {
          timeout: (CLEAR_SECONDS + 30) * 1000,
        },
      )
      .then(
        () => true,
        () => false,
      );
    const status = (await page.locator('.statusbar').textContent()) ?? '';
    const toasts = `${toastsAtCopy} ${await toastsText()}`;
    if (!ended)
      failures.push(
        `without clipboard read the countdown never ends: ${JSON.stringify(/[^\s]* clears in \d+s/.exec(status)?.[0])}`,
      );
    await server.allowClipboardRead(true);
    await page.bringToFront();
    const left = await page.evaluate(() => navigator.clipboard.readText()).catch((error) => `(${error})`);
    console.log(
      `web check: without clipboard read, the countdown ${ended ? 'ended' : 'stuck'}; the clipboard holds ${left === item.password ? 'the password' : JSON.stringify(left.slice(0, 20))}; notifications ${JSON.stringify(toasts.slice(0, 200))}`,
    );
    // Chromium lets a page write the clipboard without a click only with clipboard read granted:
    // the clear then cannot work, and the user must have been told.
    const told = /may stay on the clipboard after \d+ s/.test(toasts);
    if (left === item.password && !told)
      failures.push('without clipboard read the password stays on the clipboard, and nobody said so');
  } finally {
    await server.allowClipboardRead(true);
  }
  return failures;
}

/**
 * The first row under a connection's root that matches. List rows are drawn out of order: they
 * are read by their `data-index`.
 *
 * @returns Its locator.
 */
async function treeRow(page, rootName, matches) {
  const all = await page.$$eval('.part.sidebar .monaco-list-row', (elements) =>
    elements
      .map((element) => ({
        index: Number(element.getAttribute('data-index')),
        text: (element.textContent ?? '').replace(/\s+/g, ' ').trim(),
      }))
      .sort((a, b) => a.index - b.index),
  );
  const root = all.find((row) => row.text.startsWith(rootName));
  const target = all.find((row) => row.index > (root?.index ?? Infinity) && matches(row.text));
  if (!target) throw new Error(`no such row under ${rootName}`);
  return page.locator(`.part.sidebar .monaco-list-row[data-index="${target.index}"]`);
}

/** Opens the first folder row under a connection's root that matches, and waits for its child row. */
async function openTreeRow(page, rootName, folder, child) {
  const row = await treeRow(page, rootName, (text) => folder.test(text));
  const from = Number(await row.getAttribute('data-index'));
  await row.click();
  await page.waitForFunction(
    ({ from, child }) => {
      const texts = [...document.querySelectorAll('.part.sidebar .monaco-list-row')]
        .map((element) => ({
          index: Number(element.getAttribute('data-index')),
          text: (element.textContent ?? '').replace(/\s+/g, ' ').trim(),
        }))
        .filter((row) => row.index > from);
      return texts.some((row) => row.text.startsWith(child));
    },
    { from, child },
    { timeout: 30_000 },
  );
}

/**
 * Reads Chromium's disk cache (its profile's `Cache` folder, once Chromium is closed) for the
 * passwords the web check's TeamPass 3 folders hold: none may be there. The cache must hold the
 * workbench's own files, or an empty result would mean nothing.
 *
 * @param {string} browserDataDir Chromium's `--user-data-dir`.
 * @param {string} host The workbench's host (`127.0.0.1:port`).
 * @param {string[]} passwords The passwords that must not be there.
 * @returns {string[]} The failures; empty when the check passed.
 */
export function browserCacheCheck(browserDataDir, host, passwords) {
  const cacheDir = join(browserDataDir, 'Default/Cache');
  const { files, leaks } = scanForSecrets(cacheDir, passwords);
  const workbench = scanForSecrets(cacheDir, [`http://${host}/`]).leaks.length;
  console.log(
    `web check: Chromium's cache holds ${files.length} files, ${workbench} of the workbench, ${leaks.length} with a password`,
  );
  const failures = leaks.map((leak) => `a TeamPass 3 password is in Chromium's disk cache: ${leak}`);
  if (workbench === 0) failures.push(`Chromium's cache at ${cacheDir} holds nothing of the workbench`);
  return failures;
}
