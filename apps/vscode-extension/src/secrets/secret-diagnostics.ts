import * as vscode from 'vscode';
import { CONFIG, CONFIG_SECTION, DIAGNOSTICS } from '../constants.ts';
import { isChecked, watchDocuments } from '../references/document-filter.ts';
import { detectSecrets } from './detect-secrets.ts';

/** Whether secret detection is on (the `vaultline.secretDetection.enabled` setting). */
export function detectionEnabled(): boolean {
  return vscode.workspace.getConfiguration(CONFIG_SECTION).get<boolean>(CONFIG.secretDetectionEnabled, true);
}

/**
 * Marks literals that look like credentials in open documents (see `rules.ts`), each with the
 * Code Action that stores it in the vault. The message says what was found, never the literal.
 * Documents over `vaultline.secretDetection.maxFileSize` characters are not scanned.
 */
export class SecretDiagnostics implements vscode.Disposable {
  readonly collection = vscode.languages.createDiagnosticCollection(DIAGNOSTICS.secrets);
  private readonly watcher: vscode.Disposable;

  constructor() {
    this.watcher = watchDocuments(
      (document) => this.check(document),
      (uri) => this.collection.delete(uri),
    );
  }

  /** Scans one document now. */
  check(document: vscode.TextDocument): void {
    if (!detectionEnabled() || !isChecked(document)) {
      this.collection.delete(document.uri);
      return;
    }
    const findings = detectSecrets(document.getText(), { languageId: document.languageId });
    this.collection.set(
      document.uri,
      findings.map((finding) => {
        const diagnostic = new vscode.Diagnostic(
          new vscode.Range(document.positionAt(finding.start), document.positionAt(finding.end)),
          vscode.l10n.t(
            'Possible {0} in plain text. Store it in Vaultline and put a reference here.',
            finding.title,
          ),
          vscode.DiagnosticSeverity.Warning,
        );
        diagnostic.source = DIAGNOSTICS.source;
        diagnostic.code = finding.ruleId;
        return diagnostic;
      }),
    );
  }

  dispose(): void {
    this.watcher.dispose();
    this.collection.dispose();
  }
}
