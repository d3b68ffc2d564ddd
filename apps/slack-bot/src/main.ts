#!/usr/bin/env node
import { createBot } from './app.ts';
import { StartupError } from './bot/served-teams.ts';
import { ConfigError, readConfig } from './env.ts';
import { IdentityFileError } from './identity.ts';

try {
  const bot = await createBot(readConfig());
  await bot.start();
  const shutdown = () => {
    bot.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
} catch (error) {
  // Config, identity-file and start-up problems are the operator's to fix: say what, never a stack.
  if (error instanceof ConfigError || error instanceof IdentityFileError || error instanceof StartupError) {
    process.stderr.write(`vaultline-slack-bot: ${error.message}\n`);
  } else {
    process.stderr.write(
      `vaultline-slack-bot: could not start: ${error instanceof Error ? error.name : 'Error'}\n`,
    );
  }
  process.exit(1);
}
