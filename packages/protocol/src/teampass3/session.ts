/**
 * A TeamPass 3 session: signs in once (login + password + API key, or a personal access token),
 * keeps the JWT until shortly before the `exp` it carries, signs in again once when a call answers
 * 401 and retries that call once, waits out a 429 for as long as `Retry-After` says (within a
 * bound, through the transport), shares one sign-in between concurrent calls, reuses a token from an optional cache, reads
 * paged operations to the end (with a cap it reports), and signs out on `dispose()`. The password,
 * the API key, the personal access token and every JWT it held are removed from everything it
 * reports.
 *
 * Its parts live in `session/`: `sign-in.ts`, `tokens.ts` (holding and refreshing the token),
 * `sign-out.ts`, `send.ts` (401), `paging.ts` (many calls, paged reads).
 *
 * @see ./README.md
 * @module
 */

import { createRedactor, type Redactor, VaultError, withTokensRedacted } from '../errors.ts';
import { createTeamPass3Caller } from './caller.ts';
import type { TeamPass3Output } from './endpoints.ts';
import { callEach, readAll, readPages } from './session/paging.ts';
import { createSessionSend } from './session/send.ts';
import { createTokenKeeper } from './session/tokens.ts';
import type { TeamPass3Credentials, TeamPass3Session, TeamPass3SessionOptions } from './session/types.ts';

export type {
  TeamPass3Credentials,
  TeamPass3Page,
  TeamPass3PagedInput,
  TeamPass3ReadAllOptions,
  TeamPass3Record,
  TeamPass3Session,
  TeamPass3SessionCallOptions,
  TeamPass3SessionOptions,
  TeamPass3TokenCache,
} from './session/types.ts';

/** The credentials' secret; `invalid_request` for an empty login or secret. */
function checkCredentials(credentials: TeamPass3Credentials): void {
  if (credentials.login.trim() === '')
    throw new VaultError('invalid_request', 'Expected a login, received an empty one.');
  const secret =
    'personalAccessToken' in credentials ? credentials.personalAccessToken : credentials.password;
  if (secret === '')
    throw new VaultError(
      'invalid_request',
      'Expected a password or a personal access token, received an empty one.',
    );
}

/** A redactor of the credentials' secrets, every token remembered, and every JWT. */
function secretRedaction(credentials: TeamPass3Credentials): {
  redact: Redactor;
  remember: (value: string) => void;
} {
  const secrets = new Set<string>(
    'personalAccessToken' in credentials
      ? [credentials.personalAccessToken]
      : [credentials.password, credentials.apiKey],
  );
  let secretRedactor = createRedactor([...secrets]);
  const remember = (value: string) => {
    if (value !== '' && !secrets.has(value)) {
      secrets.add(value);
      secretRedactor = createRedactor([...secrets]);
    }
  };
  return { redact: (text) => withTokensRedacted(secretRedactor(text)), remember };
}

/**
 * Creates a session. Nothing is sent until the first call.
 *
 * @param options The server, the credentials and the limits.
 * @returns The session.
 * @example
 * ```ts
 * const credentials = { login: 'alice', password, apiKey };
 * const settings = settingsOf({ baseUrl: 'https://teampass.example.com', auth: credentials });
 * const session = createTeamPass3Session({ ...settings, credentials });
 * const folders = await session.call('writableFolders', {});
 * const { items } = await session.readAll('itemsInFolders', { folders: folders.map((f) => f.id) });
 * await session.dispose();
 * ```
 */
export function createTeamPass3Session(options: TeamPass3SessionOptions): TeamPass3Session {
  const { credentials } = options;
  checkCredentials(credentials);
  const { teampass3 } = options;
  const { now } = options.clock;
  const { redact, remember } = secretRedaction(credentials);
  const caller = createTeamPass3Caller({ ...options, redact });
  const tokens = createTokenKeeper({
    caller,
    credentials,
    tokenCache: teampass3.tokenCache,
    now,
    marginMs: teampass3.refreshMarginMs,
    remember,
  });
  const send = createSessionSend(caller, tokens);
  const limits = {
    maxItems: teampass3.maxItems,
    pageSize: teampass3.pageSize,
    concurrency: teampass3.concurrency,
  };

  return {
    baseUrl: caller.baseUrl,
    redact,
    get signIns() {
      return tokens.signIns;
    },
    async call(name, input, callOptions) {
      return (await send(name, input, callOptions?.signal)).data;
    },
    callEach: (name, inputs, eachOptions): Promise<TeamPass3Output<typeof name>[]> =>
      callEach(send, name, inputs, eachOptions?.concurrency ?? limits.concurrency, eachOptions?.signal),
    readAll: (name, input, readOptions = {}) => readAll(send, limits, name, input, readOptions),
    pages: (name, input, readOptions = {}) => readPages(send, limits, name, input, readOptions),
    async user(callOptions) {
      return (await tokens.current(callOptions?.signal)).claims;
    },
    dispose: (disposeOptions) => tokens.release(disposeOptions?.signOut ?? true),
  };
}
