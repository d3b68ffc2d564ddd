// Drives the workbench like a user: opens the Vaultline view, expands a folder, clicks an item's
// inline "Insert Login" action, checks the tree rows and the editor text, and saves a screenshot.
/**
 * @param {import('playwright-core').Page} page A workbench page with the extension loaded.
 * @param {{ folder: string, item: string, login: string, screenshot: string }} expect
 * @returns {Promise<string[]>} The failures; empty when the check passed.
 */
export async function uiCheck(page, expect) {
  try {
    return await drive(page, expect);
  } finally {
    await page.screenshot({ path: expect.screenshot }).catch(() => {});
  }
}

async function drive(page, { folder, item, login, screenshot }) {
  const failures = [];
  await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
  await page.waitForSelector('.statusbar', { timeout: 60_000 });
  // Panel and secondary side bar out of the way for the screenshot, when the workbench shows them.
  if (await page.locator('.part.panel').isVisible()) await runCommand(page, 'View: Toggle Panel Visibility');
  if (await page.locator('.part.auxiliarybar').isVisible())
    await runCommand(page, 'View: Toggle Secondary Side Bar Visibility');
  // An editor for the insertion.
  await runCommand(page, 'File: New Untitled Text File');
  await page.waitForSelector('.editor-instance .view-lines', { timeout: 15_000 });
  await page.keyboard.type('DB_USER=');
  await runCommand(page, 'Vaultline: Focus on Vault View');
  const view = page.locator('.pane', { has: page.locator('.pane-header', { hasText: /Vault/ }) }).first();
  const folderRow = view.locator('.monaco-list-row', { hasText: folder }).first();
  await folderRow.waitFor({ timeout: 30_000 });
  await folderRow.click();
  const itemRow = view.locator('.monaco-list-row', { hasText: item }).first();
  await itemRow.waitFor({ timeout: 30_000 });
  const rows = await view.locator('.monaco-list-row').allInnerTexts();
  console.log('UI tree rows:', JSON.stringify(rows.map((row) => row.replace(/\s+/g, ' ').trim())));
  for (const expected of ['alice', 'bob', folder, item]) {
    if (!rows.some((row) => row.includes(expected))) failures.push(`no tree row shows "${expected}"`);
  }
  if (!rows.some((row) => row.includes(item) && row.includes(login)))
    failures.push(`the row of ${item} does not show its login`);

  await itemRow.hover();
  await itemRow.locator('.action-label[aria-label="Insert Login"]').click();
  const editorText = page.locator('.editor-instance .view-lines').first();
  try {
    await page.waitForFunction(
      ([selector, text]) => document.querySelector(selector)?.textContent?.includes(text),
      ['.editor-instance .view-lines', `DB_USER=${login}`],
      { timeout: 15_000 },
    );
  } catch {
    failures.push(
      `the editor does not show the inserted login; it shows ${JSON.stringify(await editorText.textContent())}`,
    );
  }
  const alerts = await page
    .locator('.monaco-alert')
    .allInnerTexts()
    .catch(() => []);
  if (alerts.some((text) => /error|failed/i.test(text)))
    failures.push(`an alert reports a failure: ${alerts.join(' | ')}`);
  await page.waitForTimeout(500);
  console.log(`UI check: ${failures.length === 0 ? 'passed' : 'FAILED'}; screenshot ${screenshot}`);
  return failures;
}

/** Runs a command by its exact palette label. */
async function runCommand(page, label) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ timeout: 15_000 });
  await input.fill(`>${label}`);
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: label }).first();
  await row.waitFor({ timeout: 15_000 });
  await row.click();
  await page.waitForTimeout(300);
}
