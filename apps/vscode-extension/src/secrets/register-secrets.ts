import * as vscode from 'vscode';
import { SecretDiagnostics } from './secret-diagnostics.ts';
import { StoreSecretAction } from './store-secret.ts';

/** Registers secret detection in every file and its Code Action. (The command is `secretCommands`.) */
export function registerSecrets(own: (disposable: vscode.Disposable) => void): SecretDiagnostics {
  const selector: vscode.DocumentSelector = [{ scheme: 'file' }, { scheme: 'untitled' }];
  const diagnostics = new SecretDiagnostics();
  own(diagnostics);
  own(
    vscode.languages.registerCodeActionsProvider(selector, new StoreSecretAction(), {
      providedCodeActionKinds: StoreSecretAction.kinds,
    }),
  );
  return diagnostics;
}
