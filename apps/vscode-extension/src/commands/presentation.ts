import { COMMANDS } from '../constants.ts';
import { type CommandGroup, command } from './command.ts';

/** Presentation mode, for screen sharing. */
export const presentationCommands: CommandGroup = ({ presentation, notifier }) => [
  command(COMMANDS.togglePresentationMode, 'Presentation mode', async (on?: boolean) => {
    await presentation.toggle(typeof on === 'boolean' ? on : undefined);
    notifier.status(`Vaultline presentation mode ${presentation.enabled ? 'on' : 'off'}`);
    return presentation.enabled;
  }),
];
