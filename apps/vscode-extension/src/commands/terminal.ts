import { findReferences } from '@vaultline/protocol';
import * as vscode from 'vscode';
import { COMMANDS } from '../constants.ts';
import { UserFacingError } from '../error-messages.ts';
import { type ItemRef, toItemRef } from '../item-ref.ts';
import { envFileVariables } from '../references/env-references.ts';
import { askBindings, type EnvBinding, openVaultTerminal } from '../vault-terminal.ts';
import { type CommandGroup, command } from './command.ts';

/** A terminal whose environment holds vault values (desktop and remote hosts only, not the web). */
export const terminalCommands: CommandGroup = ({ search, connections }) => [
  command(
    COMMANDS.runWithValues,
    vscode.l10n.t('Run with vault values'),
    async (target?: unknown, selected?: unknown, bindings?: EnvBinding[]) => {
      // Offered in Restricted Mode too, so that it is found there: it says why it does not run.
      if (!vscode.workspace.isTrusted)
        throw new UserFacingError(
          vscode.l10n.t(
            'this workspace is in Restricted Mode: a terminal with vault values opens only in a trusted workspace (its files could run with your secrets).',
          ),
          {
            actions: [{ title: vscode.l10n.t('Manage Workspace Trust'), command: 'workbench.trust.manage' }],
          },
        );
      let chosen = bindings;
      if (!chosen) {
        const nodes = Array.isArray(selected) && selected.length > 0 ? selected : [target];
        let refs = nodes.map(toItemRef).filter((ref): ref is ItemRef => ref !== undefined);
        // From an editor whose file sets variables to references (`DB_PASS=vaultline://…`): all its
        // variables, the references resolved and the plain ones as written, as a program reading
        // the file would have them.
        const document = vscode.window.activeTextEditor?.document;
        const fromFile = target === undefined && document ? envFileVariables(document.getText()) : [];
        if (refs.length === 0 && fromFile.some(({ value }) => findReferences(value).length > 0))
          return openVaultTerminal(connections, fromFile);
        if (refs.length === 0) {
          const picked = await search.pick(vscode.l10n.t('Item whose values the terminal gets'));
          refs = picked ? [picked] : [];
        }
        if (refs.length === 0) return undefined;
        chosen = await askBindings(refs);
      }
      if (!chosen) return undefined;
      return openVaultTerminal(connections, chosen);
    },
  ),
];
