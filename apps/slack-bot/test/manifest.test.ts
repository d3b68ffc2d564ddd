import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ACTIONS, COMMAND, EVENTS_PATH } from '../src/constants.ts';

interface Manifest {
  features: {
    app_home: { home_tab_enabled: boolean };
    shortcuts: { name: string; type: string; callback_id: string }[];
    slash_commands: { command: string; url: string; should_escape: boolean }[];
  };
  oauth_config: { scopes: { bot: string[] } };
  settings: {
    event_subscriptions: { request_url: string; bot_events: string[] };
    interactivity: { is_enabled: boolean; request_url: string };
    socket_mode_enabled: boolean;
  };
}

describe('manifest.yaml', () => {
  it('declares the command, the shortcut, the App Home, interactivity and exactly the scopes the bot uses, at the bot’s path', async () => {
    const manifest = parse(await readFile(join(import.meta.dirname, '../manifest.yaml'), 'utf8')) as Manifest;
    const [command] = manifest.features.slash_commands;
    expect(command?.command).toBe(COMMAND);
    expect(new URL(command?.url ?? '').pathname).toBe(EVENTS_PATH);
    expect(manifest.features.shortcuts).toEqual([
      expect.objectContaining({
        name: 'Find a credential',
        type: 'global',
        callback_id: ACTIONS.findShortcut,
      }),
    ]);
    expect(manifest.features.app_home.home_tab_enabled).toBe(true);
    expect(manifest.settings.event_subscriptions.bot_events).toEqual(['app_home_opened']);
    expect(new URL(manifest.settings.event_subscriptions.request_url).pathname).toBe(EVENTS_PATH);
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(new URL(manifest.settings.interactivity.request_url).pathname).toBe(EVENTS_PATH);
    expect(manifest.oauth_config.scopes.bot.sort()).toEqual([
      'chat:write',
      'commands',
      'usergroups:read',
      'users:read',
      'users:read.email',
    ]);
    expect(manifest.settings.socket_mode_enabled).toBe(false);
  });
});
