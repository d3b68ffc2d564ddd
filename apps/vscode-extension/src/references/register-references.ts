import * as vscode from 'vscode';
import type { CommandServices } from '../commands/command.ts';
import { DebugReferences } from './debug-references.ts';
import { CHECKED_DOCUMENTS } from './document-filter.ts';
import { ReferenceDiagnostics } from './reference-diagnostics.ts';
import { ReferenceHover } from './reference-hover.ts';
import { ReferenceQuickFix } from './reference-quick-fix.ts';
import { ReferenceResolver } from './reference-resolver.ts';

/** The reference features tests and other extensions can reach. */
export interface ReferenceFeatures {
  readonly diagnostics: ReferenceDiagnostics;
  readonly debug: DebugReferences;
}

/**
 * Registers what references do in every file: hover, diagnostics of unresolvable references and
 * their quick fix, and the debug configuration provider that resolves them at launch. (Their
 * commands are the `referenceCommands` group.)
 */
export function registerReferences(
  services: CommandServices,
  own: (disposable: vscode.Disposable) => void,
): ReferenceFeatures {
  const resolver = new ReferenceResolver(services.connections);
  const diagnostics = new ReferenceDiagnostics(resolver, services.log);
  const debug = new DebugReferences(resolver, services.notifier);
  own(diagnostics);
  own(
    vscode.languages.registerHoverProvider(
      CHECKED_DOCUMENTS,
      new ReferenceHover(resolver, services.presentation, services.tree.model, services.revealed),
    ),
  );
  own(
    vscode.languages.registerCodeActionsProvider(CHECKED_DOCUMENTS, new ReferenceQuickFix(), {
      providedCodeActionKinds: ReferenceQuickFix.kinds,
    }),
  );
  own(vscode.debug.registerDebugConfigurationProvider('*', debug));
  // Connections changing can make references resolve (or stop resolving): check again.
  own(
    services.connections.onDidChange(() => {
      for (const document of vscode.workspace.textDocuments) void diagnostics.check(document);
    }),
  );
  return { diagnostics, debug };
}
