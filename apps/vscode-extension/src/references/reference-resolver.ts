import {
  findReferences,
  parseReference,
  type Reference,
  type ResolvedReference,
  resolveReferences,
  VaultReferenceError,
} from '@vaultline/protocol';
import * as vscode from 'vscode';
import type { ConnectionStore } from '../connections.ts';
import { UserFacingError } from '../error-messages.ts';

/**
 * Resolves references through the configured connections. A reference names its connection
 * (`vaultline://prod@42/password`) or uses the first one configured. Each connection's references
 * go to the protocol core's `resolveReferences` in one batch, acting for the connection's login
 * (its access checker is shared, so rights are read once). Values are returned to the caller and
 * kept nowhere.
 */
export class ReferenceResolver {
  private readonly connections: ConnectionStore;

  constructor(connections: ConnectionStore) {
    this.connections = connections;
  }

  /** The connection a reference is resolved through. */
  connectionOf(reference: Reference | undefined): string | undefined {
    return reference?.connection ?? this.connections.list()[0]?.name;
  }

  /** Whether any connection is configured: without one, references are not checked at all. */
  get configured(): boolean {
    return this.connections.list().length > 0;
  }

  /**
   * Resolves references, in order. A reference to a connection that is not configured fails with
   * `not_found`; the vault's own failures (network, wrong key) are thrown. With `values: false`
   * they are only checked: no one-time code is read and no attachment downloaded (hovers and
   * warnings, which never show a value).
   */
  async resolve(
    texts: readonly string[],
    options: { values?: boolean } = {},
  ): Promise<{ connection: string | undefined; result: ResolvedReference }[]> {
    if (!this.configured) throw new UserFacingError(vscode.l10n.t('no vault is connected.'));
    const names = new Set(this.connections.list().map((entry) => entry.name));
    const out: { connection: string | undefined; result: ResolvedReference }[] = texts.map((text) => ({
      connection: undefined,
      result: {
        ok: false,
        text,
        reference: undefined,
        error: new VaultReferenceError('invalid_reference', text, `${text}: not resolved.`),
      },
    }));
    const groups = new Map<string, number[]>();
    texts.forEach((text, index) => {
      let reference: Reference;
      try {
        reference = parseReference(text);
      } catch (error) {
        if (error instanceof VaultReferenceError)
          out[index] = { connection: undefined, result: failed(text, error) };
        else throw error;
        return;
      }
      const connection = this.connectionOf(reference)!;
      if (!names.has(connection)) {
        out[index] = {
          connection: undefined,
          result: failed(
            text,
            new VaultReferenceError(
              'not_found',
              text,
              vscode.l10n.t('{0}: no Vaultline connection named "{1}".', text, connection),
            ),
            reference,
          ),
        };
        return;
      }
      groups.set(connection, [...(groups.get(connection) ?? []), index]);
    });
    await Promise.all(
      [...groups].map(async ([name, indexes]) => {
        const connection = await this.connections.get(name);
        const results = await resolveReferences(
          connection.client,
          indexes.map((index) => texts[index]!),
          // The client's acting login (`identity().login`) is the one references resolve for.
          { checker: connection.access, values: options.values !== false },
        );
        results.forEach((result, i) => {
          out[indexes[i]!] = { connection: name, result };
        });
      }),
    );
    return out;
  }

  /** The reference under a position of a document (references never span lines). */
  static at(
    document: vscode.TextDocument,
    position: vscode.Position,
  ): { text: string; range: vscode.Range; error: VaultReferenceError | undefined } | undefined {
    const line = document.lineAt(position.line).text;
    const found = findReferences(line).find(
      (entry) => entry.start <= position.character && position.character <= entry.end,
    );
    if (!found) return undefined;
    return {
      text: found.text,
      range: new vscode.Range(position.line, found.start, position.line, found.end),
      error: found.error,
    };
  }
}

function failed(text: string, error: VaultReferenceError, reference?: Reference): ResolvedReference {
  return { ok: false, text, reference, error };
}
