import * as vscode from 'vscode';
import { COMMANDS } from '../constants.ts';
import { CommandQuickFixes } from '../quick-fix.ts';
import { REFERENCE_CODE_PREFIX } from './reference-diagnostics.ts';

/** The quick fix of an unresolvable reference: pick the item it should point at. */
export class ReferenceQuickFix extends CommandQuickFixes {
  constructor() {
    super({
      command: COMMANDS.fixReference,
      title: () => vscode.l10n.t('Choose the vault item for this reference…'),
      fixes: (code) => code.startsWith(REFERENCE_CODE_PREFIX),
    });
  }
}
