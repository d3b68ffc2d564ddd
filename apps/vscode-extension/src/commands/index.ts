import { referenceCommands } from '../references/reference-commands.ts';
import { secretCommands } from '../secrets/store-secret.ts';
import { attachmentCommands } from './attachments.ts';
import type { CommandGroup } from './command.ts';
import { connectionCommands } from './connection.ts';
import { copyCommands } from './copy.ts';
import { insertCommands } from './insert.ts';
import { presentationCommands } from './presentation.ts';
import { searchCommands } from './search.ts';
import { treeCommands } from './tree.ts';
import { writeCommands } from './write.ts';

/**
 * Every command group that runs wherever the extension runs (desktop, remote, web). A new group
 * (a file of commands) is added here; the entry of one host adds its own (`terminalCommands`).
 */
export const COMMAND_GROUPS: readonly CommandGroup[] = [
  connectionCommands,
  treeCommands,
  searchCommands,
  insertCommands,
  copyCommands,
  writeCommands,
  attachmentCommands,
  presentationCommands,
  referenceCommands,
  secretCommands,
];

export type { CommandGroup, CommandServices, HostPlatform, VaultlineCommand } from './command.ts';
export { command } from './command.ts';
export { registerCommands } from './register.ts';
