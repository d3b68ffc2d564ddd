import { describeRight, permissionsOf } from '@vaultline/protocol';
import * as vscode from 'vscode';
import { type CommandGroup, type CommandServices, command } from '../commands/command.ts';
import { COMMANDS, LOCAL_HISTORY_COMMANDS } from '../constants.ts';
import { DOTENV_LANGUAGES } from '../dotenv.ts';
import { UserFacingError, userMessage } from '../error-messages.ts';
import { CommandQuickFixes } from '../quick-fix.ts';
import { referenceFor } from '../references/reference-commands.ts';
import { type FolderNode, folderPath } from '../tree-nodes.ts';
import { detectSecrets, nameWords, type SecretFinding } from './detect-secrets.ts';
import { SECRET_RULES } from './rules.ts';

/**
 * What happens to the copies of the file in VS Code's Local History that still hold the literal:
 * `ask` (a warning with a button), `replace` the literal in them by the reference, or `keep` them.
 */
export type LocalHistoryChoice = 'ask' | 'replace' | 'keep';

/** What the store command may be told instead of asking (scripts, tests). */
export interface StoreSecretOptions {
  connection?: string;
  folderId?: number;
  label?: string;
  /** Default `ask`. */
  localHistory?: LocalHistoryChoice;
}

/** The result of a store: the new item and the reference that replaced the literal. */
export interface StoredSecret {
  itemId: number;
  reference: string;
  /**
   * The copies in Local History that held the literal, and how many had it replaced by now;
   * `undefined` where this host cannot reach Local History (a browser).
   */
  localHistory: { copies: number; replaced: number } | undefined;
}

const FORMAT_RULES: ReadonlySet<string> = new Set(SECRET_RULES.map((rule) => rule.id));

/** Proposes a label: the variable's words (`DB_PASSWORD` → `db password`), else what and where. */
export function proposeLabel(finding: Pick<SecretFinding, 'name' | 'title'>, fileName: string): string {
  const words = finding.name ? nameWords(finding.name) : [];
  if (words.length > 0) return words.join(' ');
  const base = fileName.split(/[\\/]/).at(-1) ?? fileName;
  return `${finding.title} (${base})`;
}

/** The Code Action on each detected secret. */
export class StoreSecretAction extends CommandQuickFixes {
  constructor() {
    super({
      command: COMMANDS.storeSecret,
      title: () => vscode.l10n.t('Store in Vaultline and replace with a reference'),
      fixes: (code) => FORMAT_RULES.has(code) || code.endsWith('-assignment'),
    });
  }
}

/** A folder the new item may go to, as the folder picker shows it. */
export interface FolderPick extends vscode.QuickPickItem {
  folder: FolderNode;
}

/**
 * The folder picker's entries: the folders where the login may add items (the core's rights
 * table), by their path as people see it ("Personal", not the owner's user id), with the right in
 * words.
 */
export function folderPicks(folders: readonly FolderNode[]): FolderPick[] {
  return folders
    .filter((node) => permissionsOf(node.folder.accessType).add)
    .map((node) => ({
      label: folderPath(node).join(' / '),
      description: describeRight(node.folder.accessType),
      folder: node,
    }));
}

/** The login and URL a connection string carries, stored beside it so the item is findable. */
function connectionDetails(secret: string): { login: string; url: string } {
  try {
    const url = new URL(secret);
    const login = decodeURIComponent(url.username);
    url.password = '';
    url.username = '';
    return { login, url: url.toString() };
  } catch {
    return { login: '', url: '' };
  }
}

async function storeSecret(
  services: CommandServices,
  uri: unknown,
  range: unknown,
  options: StoreSecretOptions = {},
): Promise<StoredSecret | undefined> {
  if (!(uri instanceof vscode.Uri) || !(range instanceof vscode.Range))
    throw new UserFacingError(vscode.l10n.t('expected a document and the range of a detected secret.'));
  const document = await vscode.workspace.openTextDocument(uri);
  const start = document.offsetAt(range.start);
  const end = document.offsetAt(range.end);
  const finding = detectSecrets(document.getText(), { languageId: document.languageId }).find(
    (entry) => entry.start === start && entry.end === end,
  );
  if (!finding)
    throw new UserFacingError(vscode.l10n.t('the text changed: no detected secret is there any more.'));

  const { connections } = services;
  const names = connections.list().map((entry) => entry.name);
  if (names.length === 0)
    throw new UserFacingError(vscode.l10n.t('no vault is connected. Run "Vaultline: Connect".'));
  const name =
    options.connection ??
    (names.length === 1
      ? names[0]
      : await vscode.window.showQuickPick(names, { placeHolder: vscode.l10n.t('Which vault stores it?') }));
  if (name === undefined) return undefined;
  const connection = await connections.get(name);

  // Folders where the login may add items: the view's own (the same names, the same rights).
  const root = services.tree.model.root(name);
  const tree = root ? await services.tree.model.loadFolders(root) : undefined;
  if (tree && !('byId' in tree)) throw new UserFacingError(tree.text, { complete: true });
  const writable = folderPicks(tree ? [...tree.byId.values()] : []);
  if (writable.length === 0)
    throw new UserFacingError(
      vscode.l10n.t('{0} may add items to no folder of "{1}".', connection.login, name),
    );
  let folder: FolderNode | undefined;
  if (options.folderId !== undefined) {
    folder = writable.find((entry) => entry.folder.folder.id === options.folderId)?.folder;
    if (!folder)
      throw new UserFacingError(
        vscode.l10n.t('{0} may not add items to folder {1}.', connection.login, String(options.folderId)),
      );
  } else {
    folder = (
      await vscode.window.showQuickPick(writable, { placeHolder: vscode.l10n.t('Folder of the new item') })
    )?.folder;
  }
  if (!folder) return undefined;

  const label =
    options.label ??
    (await vscode.window.showInputBox({
      prompt: vscode.l10n.t('Label of the new item'),
      value: proposeLabel(finding, document.fileName),
      ignoreFocusOut: true,
      validateInput: (text) => (text.trim() === '' ? vscode.l10n.t('Required.') : undefined),
    }));
  if (label === undefined || label.trim() === '') return undefined;

  const details =
    finding.ruleId === 'connection-string' ? connectionDetails(finding.secret) : { login: '', url: '' };
  const { id } = await connection.client.addItem({
    item: {
      label: label.trim(),
      password: finding.secret,
      folderId: folder.folder.id,
      login: details.login,
      url: details.url,
      email: '',
      description: vscode.l10n.t(
        '{0} stored from {1} by Vaultline for VS Code.',
        finding.title,
        document.fileName.split(/[\\/]/).at(-1) ?? '',
      ),
    },
  });
  connection.access.invalidate();
  services.tree.refresh();

  const reference = referenceFor(
    services,
    { connection: name, itemId: id, folderId: folder.folder.id, label },
    'password',
  );
  // dotenv reads an unquoted value up to `#`: a comment glued to the literal stays a comment,
  // set apart so that every dotenv reader sees it as one.
  const glued = DOTENV_LANGUAGES.has(document.languageId) && document.getText().charAt(end) === '#';
  const edit = new vscode.WorkspaceEdit();
  edit.replace(
    document.uri,
    new vscode.Range(document.positionAt(start), document.positionAt(end)),
    glued ? `${reference} ` : reference,
  );
  if (!(await vscode.workspace.applyEdit(edit))) {
    throw new UserFacingError(
      vscode.l10n.t(
        'item {0} was created, but the editor did not accept the edit: replace the literal with {1}.',
        String(id),
        reference,
      ),
    );
  }
  services.notifier.status(vscode.l10n.t('Vaultline: stored "{0}" and inserted its reference', label.trim()));
  const localHistory = await guardLocalHistory(
    services,
    document.uri,
    finding.secret,
    reference,
    options.localHistory ?? 'ask',
  );
  return { itemId: id, reference, localHistory };
}

/**
 * VS Code's Local History keeps a copy of the file at each save: the copies taken before still hold
 * the literal. Where this host reaches them (desktop, remote), they are found and, when the user
 * agrees, the literal in them is replaced by the reference. In a browser they are out of reach:
 * the user is told so and offered VS Code's own "Delete All" (which asks first).
 */
async function guardLocalHistory(
  services: CommandServices,
  uri: vscode.Uri,
  literal: string,
  reference: string,
  choice: LocalHistoryChoice,
): Promise<StoredSecret['localHistory']> {
  const name = uri.path.split('/').at(-1) ?? uri.path;
  const history = services.platform.localHistory;
  if (!history) {
    if (choice === 'keep') return undefined;
    const deleteAll = vscode.l10n.t('Delete All Local History…');
    void services.notifier
      .ask(
        vscode.l10n.t(
          "VS Code's Local History may keep earlier copies of {0} with the secret, out of Vaultline's reach in this window. Delete them from the Timeline view (Local History), or delete all Local History.",
          name,
        ),
        [deleteAll],
      )
      .then((chosen) => {
        if (chosen === deleteAll) void vscode.commands.executeCommand(LOCAL_HISTORY_COMMANDS.deleteAll);
      });
    return undefined;
  }
  const copies = await history.copiesHolding(uri, literal);
  if (copies.length === 0 || choice === 'keep') return { copies: copies.length, replaced: 0 };
  if (choice === 'replace')
    return { copies: copies.length, replaced: await history.replace(copies, literal, reference) };
  const replace = vscode.l10n.t('Replace It in Local History');
  void services.notifier
    .ask(
      copies.length === 1
        ? vscode.l10n.t(
            "VS Code's Local History still holds the secret in an earlier copy of {0}. Replace it there with {1}? (The copy keeps every other change.)",
            name,
            reference,
          )
        : vscode.l10n.t(
            "VS Code's Local History still holds the secret in {0} earlier copies of {1}. Replace it there with {2}? (The copies keep every other change.)",
            copies.length,
            name,
            reference,
          ),
      [replace],
    )
    .then(async (chosen) => {
      if (chosen !== replace) return;
      try {
        // Found again: a save since the question may have added a copy.
        const replaced = await history.replace(await history.copiesHolding(uri, literal), literal, reference);
        services.notifier.status(
          vscode.l10n.t('Vaultline: replaced the secret in {0} Local History copies of {1}', replaced, name),
        );
      } catch (error) {
        services.notifier.error(userMessage(error, vscode.l10n.t('Replace in Local History')));
      }
    });
  return { copies: copies.length, replaced: 0 };
}

/** Store in Vaultline and replace with a reference. */
export const secretCommands: CommandGroup = (services) => [
  command(
    COMMANDS.storeSecret,
    'Store secret',
    (uri: unknown, range: unknown, options?: StoreSecretOptions) =>
      storeSecret(services, uri, range, options),
  ),
];
