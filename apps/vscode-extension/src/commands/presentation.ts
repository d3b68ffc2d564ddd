import * as vscode from 'vscode';
import { COMMANDS } from '../constants.ts';
import type { Notifier } from '../notifier.ts';
import type { PresentationMode } from '../presentation-mode.ts';
import { type CommandGroup, command } from './command.ts';

async function set(
  presentation: PresentationMode,
  notifier: Notifier,
  on: boolean | undefined,
): Promise<boolean> {
  await presentation.toggle(on);
  notifier.status(
    presentation.enabled
      ? vscode.l10n.t('Vaultline presentation mode on')
      : vscode.l10n.t('Vaultline presentation mode off'),
  );
  return presentation.enabled;
}

/** Presentation mode, for screen sharing: a toggle for the palette, on and off for the view's title. */
export const presentationCommands: CommandGroup = ({ presentation, notifier }) => [
  command(COMMANDS.togglePresentationMode, vscode.l10n.t('Presentation mode'), (on?: unknown) =>
    set(presentation, notifier, typeof on === 'boolean' ? on : undefined),
  ),
  command(COMMANDS.presentationModeOn, vscode.l10n.t('Presentation mode'), () =>
    set(presentation, notifier, true),
  ),
  command(COMMANDS.presentationModeOff, vscode.l10n.t('Presentation mode'), () =>
    set(presentation, notifier, false),
  ),
  // A click on an attachment while presenting: what happened, and the way out.
  command(COMMANDS.explainPresentation, vscode.l10n.t('Presentation mode'), () => {
    const turnOff = vscode.l10n.t('Turn Off Presentation Mode');
    void notifier
      .ask(
        vscode.l10n.t(
          'Presentation mode is on: attachments stay closed and are not saved from a click. Turn it off to open or save one.',
        ),
        [turnOff],
      )
      .then((chosen) => (chosen === turnOff ? set(presentation, notifier, false) : undefined));
  }),
];
