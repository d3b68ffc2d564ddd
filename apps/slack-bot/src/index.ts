/**
 * The Vaultline Slack bot: `/vault find`, `/vault get` and password reveal, limited to what each
 * person's vault user may read.
 *
 * @module
 */

export { type Bot, type BotOptions, createBot } from './app.ts';
export { type Config, ConfigError, readConfig } from './env.ts';
export { VAULT_ERROR_MESSAGES, VAULT_REASON_MESSAGES } from './error-messages.ts';
export { escapeMrkdwn } from './escape.ts';
