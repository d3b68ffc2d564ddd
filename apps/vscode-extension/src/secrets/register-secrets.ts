import * as vscode from 'vscode';
import { CHECKED_DOCUMENTS } from '../references/document-filter.ts';
import { SecretDiagnostics } from './secret-diagnostics.ts';
import { StoreSecretAction } from './store-secret.ts';

/** Registers secret detection in every file and its Code Action. (The command is `secretCommands`.) */
export function registerSecrets(own: (disposable: vscode.Disposable) => void): SecretDiagnostics {
  const diagnostics = new SecretDiagnostics();
  own(diagnostics);
  own(
    vscode.languages.registerCodeActionsProvider(CHECKED_DOCUMENTS, new StoreSecretAction(), {
      providedCodeActionKinds: StoreSecretAction.kinds,
    }),
  );
  return diagnostics;
}
