import { describeRight, isVaultError, permissionsOf } from '@vaultline/protocol';
import * as vscode from 'vscode';
import { type CommandGroup, type CommandServices, command } from '../commands/command.ts';
import { COMMANDS, LOCAL_HISTORY_COMMANDS } from '../constants.ts';
import { DOTENV_LANGUAGES } from '../dotenv.ts';
import { UserFacingError, userMessage } from '../error-messages.ts';
import { strengthProblem } from '../password-strength.ts';
import { CommandQuickFixes } from '../quick-fix.ts';
import { referenceFor } from '../references/reference-commands.ts';
import { type FolderNode, folderPath, type MessageNode } from '../tree-nodes.ts';
import { detectSecrets, nameWords, type SecretFinding } from './detect-secrets.ts';
import { SECRET_RULES } from './rules.ts';

/**
 * What happens to the copies of the file in VS Code's Local History that still hold the literal:
 * `replace` the literal in them by the reference (the default: storing the secret is asking for it
 * to be gone from the files), or `keep` them.
 */
export type LocalHistoryChoice = 'replace' | 'keep';

/** What the store command may be told instead of asking (scripts, tests). */
export interface StoreSecretOptions {
  connection?: string;
  folderId?: number;
  label?: string;
  /** Default `replace`. */
  localHistory?: LocalHistoryChoice;
  /**
   * A `.env` value with a `#` glued to it (`Hunter7!Quokka#Blue`): dotenv reads only the text
   * before it. `whole` stores the whole text (what the value reads quoted), `read` what dotenv
   * reads (the rest stays a comment); asked in a dialog when absent.
   */
  gluedHash?: 'whole' | 'read';
  /** A secret weaker than the folder's rule: `store` it anyway or `cancel`; asked when absent. */
  weak?: 'store' | 'cancel';
}

/** The title of each step of the store flow, with its number. */
function stepTitle(step: number, steps: number): string {
  return vscode.l10n.t('Store in Vaultline ({0}/{1})', step, steps);
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

/** The label after a taken one: `db password` → `db password 2`, `db password 2` → `db password 3`. */
export function nextLabel(taken: string): string {
  const numbered = /^(.*\S)\s+(\d+)$/.exec(taken);
  return numbered ? `${numbered[1]} ${Number(numbered[2]) + 1}` : `${taken} 2`;
}

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
    throw new UserFacingError(vscode.l10n.t('no vault is connected. Run "Vaultline: Connect to a Vault".'));
  // The folders where each login may add items: the view's own (the same names, the same rights).
  const writableIn = async (name: string): Promise<FolderPick[] | MessageNode> => {
    const root = services.tree.model.root(name);
    const tree = root ? await services.tree.model.loadFolders(root) : undefined;
    if (tree && !('byId' in tree)) return tree;
    return folderPicks(tree ? [...tree.byId.values()] : []);
  };
  let name = options.connection;
  let writable: FolderPick[] | MessageNode | undefined;
  if (name === undefined) {
    // Only the vaults where the login may add an item somewhere are offered.
    const candidates = await Promise.all(
      names.map(async (candidate) => ({ name: candidate, writable: await writableIn(candidate) })),
    );
    const usable = candidates.filter((entry) => Array.isArray(entry.writable) && entry.writable.length > 0);
    if (usable.length === 0) {
      const failed = candidates.find((entry) => !Array.isArray(entry.writable));
      if (failed && !Array.isArray(failed.writable))
        throw new UserFacingError(failed.writable.text, { complete: true });
      throw new UserFacingError(vscode.l10n.t('no connected vault lets its login add items to a folder.'));
    }
    const chosen =
      usable.length === 1
        ? usable[0]
        : (
            await vscode.window.showQuickPick(
              usable.map((entry) => ({ label: entry.name, entry })),
              { title: stepTitle(1, 3), placeHolder: vscode.l10n.t('Which vault stores it?') },
            )
          )?.entry;
    if (chosen === undefined) return undefined;
    name = chosen.name;
    writable = chosen.writable;
  }
  const connection = await connections.get(name);
  writable ??= await writableIn(name);
  if (!Array.isArray(writable)) throw new UserFacingError(writable.text, { complete: true });
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
      await vscode.window.showQuickPick(writable, {
        title: stepTitle(2, 3),
        placeHolder: vscode.l10n.t('Folder of the new item'),
      })
    )?.folder;
  }
  if (!folder) return undefined;

  // A `#` glued to an unquoted .env value: dotenv reads only what comes before it. Said, and the
  // whole text offered (what the value reads when quoted).
  const text = document.getText();
  const glued = DOTENV_LANGUAGES.has(document.languageId) ? /^#\S*/.exec(text.slice(end))?.[0] : undefined;
  let secret = finding.secret;
  let replaceEnd = end;
  if (glued !== undefined && glued.length > 1) {
    const whole = vscode.l10n.t('Store the Whole Text');
    const read = vscode.l10n.t('Store What dotenv Reads');
    const choice =
      options.gluedHash ??
      (await vscode.window
        .showWarningMessage(
          vscode.l10n.t(
            'dotenv reads {0} only up to "#": an unquoted value ends there, so the {1} characters from "#" on are a comment nothing reads. If they belong to the secret, store the whole text ({2} characters, what the value reads in quotes); or store the {3} characters dotenv reads now.',
            finding.name ?? vscode.l10n.t('this value'),
            [...glued].length,
            [...finding.secret].length + [...glued].length,
            [...finding.secret].length,
          ),
          { modal: true },
          whole,
          read,
        )
        .then((chosen) => (chosen === whole ? 'whole' : chosen === read ? 'read' : undefined)));
    if (choice === undefined) return undefined;
    if (choice === 'whole') {
      secret = finding.secret + glued;
      replaceEnd = end + glued.length;
    }
  }

  // The folder's own rule, where the server reports it: a secret weaker than that is said before
  // it is stored (it is already in use, so storing it anyway is the user's choice).
  const weak =
    folder.folder.complexityLevel === undefined
      ? undefined
      : strengthProblem(secret, folder.folder.complexityLevel);
  if (weak !== undefined) {
    const storeAnyway = vscode.l10n.t('Store Anyway');
    const choice =
      options.weak ??
      (await vscode.window
        .showWarningMessage(
          vscode.l10n.t('This secret is {0} Change it where it is issued when you can.', weak),
          { modal: true },
          storeAnyway,
        )
        .then((chosen) => (chosen === storeAnyway ? 'store' : 'cancel')));
    if (choice !== 'store') {
      services.notifier.warning(vscode.l10n.t('Vaultline: nothing stored. This secret is {0}', weak));
      return undefined;
    }
  }

  const details =
    finding.ruleId === 'connection-string' ? connectionDetails(finding.secret) : { login: '', url: '' };
  // Labels are unique in a vault (folded: case and accents aside), across folders this login may
  // not see: a label found taken is asked again, the next free-looking one proposed.
  let proposal = proposeLabel(finding, document.fileName);
  let taken: string | undefined;
  let label = '';
  let id: number | undefined;
  while (id === undefined) {
    const answer =
      options.label ??
      (await vscode.window.showInputBox({
        title: stepTitle(3, 3),
        prompt:
          taken === undefined
            ? vscode.l10n.t('Label of the new item')
            : vscode.l10n.t(
                'The vault already holds an item labelled like "{0}": choose another label.',
                taken,
              ),
        value: proposal,
        ignoreFocusOut: true,
        validateInput: (text) => (text.trim() === '' ? vscode.l10n.t('Required.') : undefined),
      }));
    if (answer === undefined || answer.trim() === '') return undefined;
    label = answer.trim();
    try {
      ({ id } = await connection.client.items.create({
        label,
        password: secret,
        folderId: folder.folder.id,
        login: details.login,
        url: details.url,
        email: '',
        description: vscode.l10n.t(
          '{0} stored from {1} by Vaultline for VS Code.',
          finding.title,
          document.fileName.split(/[\\/]/).at(-1) ?? '',
        ),
      }));
    } catch (error) {
      if (!isVaultError(error, 'duplicate_label')) throw error;
      if (options.label !== undefined)
        throw new UserFacingError(
          vscode.l10n.t('the vault already holds an item labelled like "{0}": give another label.', label),
        );
      taken = label;
      proposal = nextLabel(taken);
    }
  }
  connection.access.invalidate();
  services.tree.refresh();

  const reference = referenceFor(
    services,
    { connection: name, itemId: id, folderId: folder.folder.id, label },
    'password',
  );
  // What dotenv reads was stored: the comment glued to the literal stays a comment, set apart so
  // that every dotenv reader sees it as one.
  const edit = new vscode.WorkspaceEdit();
  edit.replace(
    document.uri,
    new vscode.Range(document.positionAt(start), document.positionAt(replaceEnd)),
    glued !== undefined && replaceEnd === end ? `${reference} ` : reference,
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
    secret,
    reference,
    options.localHistory ?? 'replace',
  );
  return { itemId: id, reference, localHistory };
}

/**
 * VS Code's Local History keeps a copy of the file at each save: the copies taken before still hold
 * the literal. Where this host reaches them (desktop, remote), they are found and the literal in
 * them is replaced by the reference right away, and the user is told how many. In a browser they
 * are out of reach: the user is told so and offered VS Code's own "Delete All" (which asks first).
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
  // Done at once, not asked in a message that may hide itself unanswered: storing the secret is
  // asking for it to be gone from the file, and its copies keep every other change.
  try {
    const replaced = await history.replace(copies, literal, reference);
    services.notifier.info(
      replaced === 1
        ? vscode.l10n.t(
            "Vaultline: replaced the secret with its reference in 1 earlier copy of {0} in VS Code's Local History (the copy keeps every other change).",
            name,
          )
        : vscode.l10n.t(
            "Vaultline: replaced the secret with its reference in {0} earlier copies of {1} in VS Code's Local History (the copies keep every other change).",
            replaced,
            name,
          ),
    );
    return { copies: copies.length, replaced };
  } catch (error) {
    services.notifier.error(userMessage(error, vscode.l10n.t('Replace in Local History')));
    return { copies: copies.length, replaced: 0 };
  }
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
