import {
  formatReference,
  OTP_FIELD,
  parseReference,
  REFERENCE_FIELDS,
  type ReferenceField,
  type ResolvedValue,
  referenceToItem,
} from '@vaultline/protocol';
import * as vscode from 'vscode';
import { clearSeconds } from '../clipboard-copy.ts';
import { type CommandGroup, type CommandServices, command } from '../commands/command.ts';
import { chooseField, chooseItem } from '../commands/targets.ts';
import { COMMANDS, INSERT_CHOICES, type ItemField, ONE_TIME_CODE_MIN_SECONDS } from '../constants.ts';
import { UserFacingError } from '../error-messages.ts';
import { fieldLabel } from '../field-labels.ts';
import { insertField } from '../insert-field.ts';
import type { ItemRef } from '../item-ref.ts';
import { ReferenceResolver } from './reference-resolver.ts';

/** How an insert writes an item field into a file. */
export type InsertChoice = 'reference' | 'value';

/**
 * The reference text for an item field. The connection is named only when it is not the first one
 * configured (the one a reference without a name goes to), so that references stay portable
 * between people whose connections have other names.
 */
export function referenceFor(services: CommandServices, ref: ItemRef, field: ReferenceField): string {
  const first = services.connections.list()[0]?.name;
  return formatReference(
    referenceToItem({ id: ref.itemId, label: ref.label ?? '', path: [] }, field, {
      connection: ref.connection === first ? undefined : ref.connection,
    }),
  );
}

/** Asks reference or value, the language's last choice first, and remembers the answer. */
async function askChoice(
  services: CommandServices,
  languageId: string,
  field: ItemField,
): Promise<InsertChoice | undefined> {
  const state = services.context.globalState;
  const choices = state.get<Record<string, InsertChoice>>(INSERT_CHOICES) ?? {};
  const items: (vscode.QuickPickItem & { choice: InsertChoice })[] = [
    {
      choice: 'reference',
      label: vscode.l10n.t('$(link) Reference'),
      description: vscode.l10n.t('vaultline://…/{0}: the file never holds the value', field),
    },
    {
      choice: 'value',
      label: vscode.l10n.t('$(key) Value'),
      description: vscode.l10n.t('the {0} itself, in plain text', fieldLabel(field).toLowerCase()),
    },
  ];
  if (choices[languageId] === 'value') items.reverse();
  const picked = await vscode.window.showQuickPick(items, {
    placeHolder: vscode.l10n.t('Insert a reference or the value? (remembered for {0} files)', languageId),
  });
  if (!picked) return undefined;
  await state.update(INSERT_CHOICES, { ...choices, [languageId]: picked.choice });
  return picked.choice;
}

/**
 * Inserts a reference to an item field (or, if chosen, the value) at every cursor.
 *
 * @returns How many cursors received it; 0 when cancelled.
 */
async function insertReference(
  services: CommandServices,
  target: unknown,
  field: unknown,
  choice: unknown,
): Promise<number> {
  const editor = vscode.window.activeTextEditor;
  if (!editor)
    throw new UserFacingError(vscode.l10n.t('open an editor and place the cursor where the reference goes.'));
  const title = vscode.l10n.t('Insert a reference to a vault value');
  const ref = await chooseItem(services.search, target, title);
  if (!ref) return 0;
  const requested = field ?? (target === undefined ? undefined : 'password');
  // An item's one-time code changes every few seconds: only its reference is worth writing down.
  let otp = requested === OTP_FIELD;
  if (requested === undefined && ref.otp === true) {
    const answer = await askOtp();
    if (answer === undefined) return 0;
    otp = answer;
  }
  const chosen = otp ? undefined : await chooseField(requested, [], title);
  if (!otp && !chosen) return 0;
  const how = otp
    ? 'reference'
    : choice === 'reference' || choice === 'value'
      ? choice
      : await askChoice(services, editor.document.languageId, chosen!);
  if (!how) return 0;
  if (how === 'value') return insertField(services.connections, services.presentation, ref, chosen!);
  const text = referenceFor(services, ref, otp ? OTP_FIELD : chosen!);
  const selections = [...editor.selections];
  const done = await editor.edit((builder) => {
    for (const selection of selections) builder.replace(selection, text);
  });
  if (!done) throw new UserFacingError(vscode.l10n.t('the editor did not accept the edit.'));
  services.notifier.status(
    selections.length === 1
      ? vscode.l10n.t('Vaultline: inserted a reference at the cursor')
      : vscode.l10n.t('Vaultline: inserted a reference at {0} cursors', selections.length),
  );
  return selections.length;
}

/**
 * For an item that holds a one-time code: whether the reference is to that code or to a field.
 *
 * @returns `true` for the code, `false` for a field, `undefined` when cancelled.
 */
async function askOtp(): Promise<boolean | undefined> {
  const picked = await vscode.window.showQuickPick(
    [
      { label: vscode.l10n.t('$(key) A field (login, password, URL, email)'), otp: false },
      { label: vscode.l10n.t('$(watch) Its one-time code (TOTP)'), otp: true },
    ],
    { placeHolder: vscode.l10n.t('Reference which value of the item?') },
  );
  return picked?.otp;
}

/** The reference a command acts on: its argument, or the one at the cursor. */
function referenceArgument(text: unknown): string {
  if (typeof text === 'string') return text;
  const editor = vscode.window.activeTextEditor;
  const at = editor ? ReferenceResolver.at(editor.document, editor.selection.active) : undefined;
  if (!at) throw new UserFacingError(vscode.l10n.t('place the cursor on a vaultline:// reference.'));
  return at.text;
}

async function resolveOne(
  resolver: ReferenceResolver,
  text: string,
  options: { values?: boolean } = {},
): Promise<{ connection: string; result: ResolvedValue }> {
  const [outcome] = await resolver.resolve([text], options);
  if (!outcome?.result.ok || outcome.connection === undefined)
    throw new UserFacingError(outcome && !outcome.result.ok ? outcome.result.error.message : text);
  return { connection: outcome.connection, result: outcome.result };
}

/** Insert reference, Go to Item, Copy the referenced value, and the quick fix that picks the item. */
export const referenceCommands: CommandGroup = (services) => {
  const resolver = new ReferenceResolver(services.connections);
  return [
    command(
      COMMANDS.insertReference,
      'Insert reference',
      (target?: unknown, field?: unknown, choice?: unknown) =>
        insertReference(services, target, field, choice),
    ),
    command(COMMANDS.goToItem, 'Go to item', async (text?: unknown) => {
      const { connection, result } = await resolveOne(resolver, referenceArgument(text), { values: false });
      const node = await services.tree.findItem(connection, result.item.folderId, result.item.id);
      if (!node) throw new UserFacingError(vscode.l10n.t('the item is not in the Vaultline view.'));
      await services.treeView.reveal(node, { select: true, focus: true, expand: false });
      return true;
    }),
    command(
      COMMANDS.revealReferencedValue,
      'Reveal',
      async (text?: unknown, uri?: unknown, line?: unknown, character?: unknown, seconds?: unknown) => {
        services.presentation.assertOff(vscode.l10n.t('Revealing a value'));
        if (typeof uri !== 'string' || !Number.isInteger(line) || !Number.isInteger(character))
          throw new UserFacingError(vscode.l10n.t('expected a reference, its document and its position.'));
        const reference = referenceArgument(text);
        const { result } = await resolveOne(resolver, reference);
        if (result.value === '') throw new UserFacingError(vscode.l10n.t('the referenced value is empty.'));
        // A one-time code is shown no longer than it is valid.
        const shownFor = Math.min(clearSeconds(seconds), result.secondsLeft ?? Number.POSITIVE_INFINITY);
        services.revealed.reveal(uri, reference, result.value, shownFor);
        // The hover again, now with the value, where the reference is.
        const editor = vscode.window.visibleTextEditors.find(
          (visible) => visible.document.uri.toString() === uri,
        );
        if (editor) {
          const at = new vscode.Position(line as number, character as number);
          await vscode.window.showTextDocument(editor.document, {
            ...(editor.viewColumn === undefined ? {} : { viewColumn: editor.viewColumn }),
            selection: new vscode.Range(at, at),
          });
          // The hover that holds the link is still open with its old text, and showHover leaves an
          // open hover as it is: closed first, so it is asked again and shows the value.
          await vscode.commands.executeCommand('editor.action.hideHover');
          await vscode.commands.executeCommand('editor.action.showHover');
        }
        return true;
      },
    ),
    command(COMMANDS.copyReferencedValue, 'Copy value', async (text?: unknown, seconds?: unknown) => {
      let { result } = await resolveOne(resolver, referenceArgument(text));
      // A one-time code about to change: the next one is copied once it is there.
      if (result.secondsLeft !== undefined && result.secondsLeft < ONE_TIME_CODE_MIN_SECONDS) {
        await new Promise((resolve) => setTimeout(resolve, (result.secondsLeft ?? 0) * 1000 + 300));
        ({ result } = await resolveOne(resolver, referenceArgument(text)));
      }
      if (result.value === '') throw new UserFacingError(vscode.l10n.t('the referenced value is empty.'));
      if (result.secondsLeft === undefined)
        return services.clipboard.copy(result.value, vscode.l10n.t('Referenced value'), seconds);
      const copied = await services.clipboard.copy(result.value, vscode.l10n.t('One-time code'), seconds);
      services.notifier.status(
        vscode.l10n.t(
          'Vaultline: copied the one-time code of "{0}", valid {1} more seconds',
          result.item.label,
          result.secondsLeft,
        ),
      );
      return { ...copied, secondsLeft: result.secondsLeft };
    }),
    command(
      COMMANDS.fixReference,
      'Fix reference',
      async (uri: unknown, range: unknown, target?: unknown) => {
        if (!(uri instanceof vscode.Uri) || !(range instanceof vscode.Range))
          throw new UserFacingError(vscode.l10n.t('expected a document and the range of a reference.'));
        const document = await vscode.workspace.openTextDocument(uri);
        const at = ReferenceResolver.at(document, range.start);
        const ref = await chooseItem(
          services.search,
          target,
          vscode.l10n.t('The item this reference should point at'),
        );
        if (!ref) return undefined;
        let field: ReferenceField | undefined;
        try {
          field = at ? parseReference(at.text).field : undefined;
        } catch {
          field = undefined;
        }
        if (
          field === undefined ||
          (typeof field === 'string' && !(REFERENCE_FIELDS as readonly string[]).includes(field))
        )
          field = await chooseField(undefined);
        if (field === undefined) return undefined;
        const text = referenceFor(services, ref, field);
        const edit = new vscode.WorkspaceEdit();
        edit.replace(uri, at?.range ?? range, text);
        if (!(await vscode.workspace.applyEdit(edit)))
          throw new UserFacingError(vscode.l10n.t('the editor did not accept the edit.'));
        return text;
      },
    ),
  ];
};
