/**
 * What runs for the commands declared in ./command.ts, loaded only when one of them runs.
 *
 * @module
 */

import { clearValueCaches } from '@vaultline/value-cache';
import type { CommandContext } from '../../context.ts';

/** What `cache` does. */
export const clearAction = (context: CommandContext) => async () => {
  const { env, output } = context;
  const count = await clearValueCaches(env.cacheDir);
  output.err(
    count === 0
      ? `No cached values in ${env.cacheDir}.`
      : `Deleted the cached values of ${count} connection${count === 1 ? '' : 's'} from ${env.cacheDir}.`,
  );
};
