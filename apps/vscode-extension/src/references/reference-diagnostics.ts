import { findReferences } from '@vaultline/protocol';
import * as vscode from 'vscode';
import { DIAGNOSTICS } from '../constants.ts';
import { userMessage } from '../error-messages.ts';
import type { RequestLog } from '../request-log.ts';
import { isChecked, watchDocuments } from './document-filter.ts';
import type { ReferenceResolver } from './reference-resolver.ts';

/** The diagnostic code prefix of unresolvable references (`reference-not_found`, …). */
export const REFERENCE_CODE_PREFIX = 'reference-';

/**
 * Marks references that do not resolve, in every open document: malformed ones at once, the others
 * after one batched resolution per connection. The message names the reference and why (not found,
 * ambiguous with the candidates' ids, no right, unknown field), never a value. When the vault cannot
 * be reached, nothing is marked: that is not the reference's fault.
 */
export class ReferenceDiagnostics implements vscode.Disposable {
  readonly collection = vscode.languages.createDiagnosticCollection(DIAGNOSTICS.references);
  private readonly watcher: vscode.Disposable;
  private readonly resolver: ReferenceResolver;
  private readonly log: RequestLog;

  constructor(resolver: ReferenceResolver, log: RequestLog) {
    this.resolver = resolver;
    this.log = log;
    this.watcher = watchDocuments(
      (document) => this.check(document),
      (uri) => this.collection.delete(uri),
      500,
    );
  }

  /** Checks one document now. */
  async check(document: vscode.TextDocument): Promise<void> {
    if (!isChecked(document) || !this.resolver.configured) {
      this.collection.delete(document.uri);
      return;
    }
    const version = document.version;
    const found = findReferences(document.getText());
    if (found.length === 0) {
      this.collection.delete(document.uri);
      return;
    }
    const diagnostics: vscode.Diagnostic[] = [];
    const failures = new Map<string, { code: string; message: string }>();
    for (const entry of found) {
      if (entry.error) failures.set(entry.text, { code: entry.error.code, message: entry.error.message });
    }
    const texts = [...new Set(found.filter((entry) => !entry.error).map((entry) => entry.text))];
    try {
      // Checked, not read: a warning needs no value (no one-time code read, no attachment downloaded).
      const outcomes = await this.resolver.resolve(texts, { values: false });
      outcomes.forEach(({ result }, index) => {
        if (!result.ok)
          failures.set(texts[index]!, { code: result.error.code, message: result.error.message });
      });
    } catch (error) {
      this.log.info(`references not checked: ${userMessage(error, 'Check references')}`);
      return;
    }
    if (document.version !== version || document.isClosed) return;
    for (const entry of found) {
      const failure = failures.get(entry.text);
      if (!failure) continue;
      const range = new vscode.Range(document.positionAt(entry.start), document.positionAt(entry.end));
      const diagnostic = new vscode.Diagnostic(range, failure.message, vscode.DiagnosticSeverity.Warning);
      diagnostic.source = DIAGNOSTICS.source;
      diagnostic.code = REFERENCE_CODE_PREFIX + failure.code;
      diagnostics.push(diagnostic);
    }
    this.collection.set(document.uri, diagnostics);
  }

  dispose(): void {
    this.watcher.dispose();
    this.collection.dispose();
  }
}
