import { createRedactor, type Redactor, withTokensRedacted } from '@vaultline/protocol';

/**
 * The secrets the bot holds for a while (the linked accounts' passwords, keys and tokens, while
 * their clients live), so that the logger removes them from every line, as it removes the
 * configured ones: a line that would carry one (a library's message, an error) never does.
 */
export interface SecretRegistry {
  /** Removes every held secret, and anything shaped like a session token, from a text. */
  readonly redact: Redactor;
  /**
   * Holds secrets under a name, replacing what the name held.
   *
   * @param name Whose they are (a Slack user, a link attempt).
   * @param secrets The secrets.
   */
  hold(name: string, secrets: readonly string[]): void;
  /**
   * Forgets the secrets held under a name.
   *
   * @param name Whose they were.
   */
  release(name: string): void;
}

/**
 * Creates the registry.
 *
 * @returns It, holding nothing.
 */
export function createSecretRegistry(): SecretRegistry {
  const held = new Map<string, readonly string[]>();
  let redactor: Redactor = createRedactor([]);
  const rebuild = () => {
    redactor = createRedactor([...held.values()].flat());
  };
  return {
    redact: (text) => withTokensRedacted(redactor(text)),
    hold(name, secrets) {
      held.set(
        name,
        secrets.filter((secret) => secret !== ''),
      );
      rebuild();
    },
    release(name) {
      if (held.delete(name)) rebuild();
    },
  };
}
