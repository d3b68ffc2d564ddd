import { createVaultClient, type Dialect, detectDialect, isVaultError } from '@vaultline/protocol';
import type { Logger } from 'pino';
import { ENV } from '../constants.ts';
import { type Config, ConfigError } from '../env.ts';

/** How the bot reaches the vault for people, decided once at start. */
export interface VaultMode {
  /**
   * Whether each person links their own account: the vault's keys cannot read another user's
   * rights (`capabilities.otherUsers` is false, TeamPass 3), so the bot has no key that could.
   */
  linking: boolean;
  /** The dialect detected, passed back to every client so that none probes again; undefined when unknown. */
  dialect: Dialect | undefined;
}

/**
 * Asks the vault (one keyless request: the core's `detectDialect`) what it can do, and decides
 * from its capabilities whether people link their accounts. A vault that cannot be told (down,
 * slow) is decided from the configuration, as the core decides a client's dialect from its
 * credentials: the bot's key (`VAULT_API_KEY`) means one key reads everyone's rights; no key and a
 * link key (`LINK_ENCRYPTION_KEY`) mean people link. Then checks that the settings this needs are
 * there, and refuses to start without them.
 *
 * @param config The settings.
 * @param fetch The `fetch` to use.
 * @param logger Says what was decided, and why.
 * @returns The mode.
 * @throws {ConfigError} When a setting the vault needs is missing.
 */
export async function decideVaultMode(
  config: Config,
  fetch: typeof globalThis.fetch | undefined,
  logger: Logger,
): Promise<VaultMode> {
  const found = await detectDialect({ baseUrl: config.vaultUrl, fetch, timeoutMs: config.vaultTimeoutMs });
  const linking = found.detected ? !found.capabilities.otherUsers : config.vaultApiKey === undefined;
  logger.info(
    { linking, detected: found.detected, evidence: found.evidence },
    linking
      ? 'each person links their own vault account (the vault’s keys cannot read other users’ rights)'
      : 'the bot’s key acts for each person, within their rights',
  );
  const problems: string[] = [];
  if (linking) {
    if (!config.link)
      problems.push(
        `${ENV.linkKey} is required: the vault at ${ENV.vaultUrl} has no key that reads every person's rights, so each person links their own account, which the bot keeps sealed with this key (32 random bytes in base64, for example from "openssl rand -base64 32")`,
      );
    if (config.vaultApiKey !== undefined)
      logger.warn(`${ENV.vaultApiKey} is not used: each person links their own vault account`);
  } else {
    if (
      config.vaultApiKey !== undefined &&
      found.detected &&
      !(await keyReadsOthers(config, fetch, found.dialect))
    )
      problems.push(
        `${ENV.vaultApiKey} acts as one TeamPass 3 account (a Vaultline server in upstream mode over TeamPass 3) and cannot read other people's rights, so the bot cannot act for them (and would answer them differently for items that exist and items that do not). Point ${ENV.vaultUrl} at TeamPass 3 itself, where each person links their own account`,
      );
    if (config.vaultApiKey === undefined)
      problems.push(
        `${ENV.vaultApiKey} is required: the vault at ${ENV.vaultUrl} reads each person's rights with the bot's key`,
      );
    if (config.identity.mode === 'map' && config.identity.mapFile === '')
      problems.push(`${ENV.identityMapFile} is required when ${ENV.identityMode}=map`);
    if (config.identity.mode === 'email' && config.identity.directoryFile === '')
      problems.push(`${ENV.userDirectoryFile} is required when ${ENV.identityMode}=email`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return { linking, dialect: found.dialect };
}

/** A login nobody has: asking its rights tells whether the key may read anyone's. */
const RIGHTS_CHECK_LOGIN = 'vaultline-slack-bot-rights-check';

/**
 * Whether the bot's key reads other people's rights, as its server says keys can: not where the
 * key acts as one TeamPass 3 account (a Vaultline server in upstream mode over TeamPass 3), which
 * answers `unsupported`. Any other answer (no such user, the vault down) counts as yes.
 */
async function keyReadsOthers(
  config: Config,
  fetch: typeof globalThis.fetch | undefined,
  dialect: Dialect | undefined,
): Promise<boolean> {
  const client = createVaultClient({
    baseUrl: config.vaultUrl,
    auth: config.vaultApiKey ?? '',
    timeoutMs: config.vaultTimeoutMs,
    fetch,
    dialect: dialect ?? 'auto',
  });
  try {
    await client.folders.list({ login: RIGHTS_CHECK_LOGIN });
    return true;
  } catch (error) {
    return !isVaultError(error, 'unsupported');
  } finally {
    await client.dispose().catch(() => undefined);
  }
}
