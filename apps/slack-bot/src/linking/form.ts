import { LINK_INPUT_MAX } from '../constants.ts';
import type { Deps } from '../deps.ts';
import type { LinkCredentials } from './links.ts';

/** The input blocks of the link form; each input's action id is {@link INPUT}. */
export const LINK_BLOCKS = {
  login: 'link_login',
  password: 'link_password',
  apiKey: 'link_api_key',
  token: 'link_token',
} as const;
/** The action id of every input of the link form. */
export const INPUT = 'value';

/** What the link form asks, by {@link Config.linkCredentials}. */
export type Asked = Deps['config']['linkCredentials'];

/** What a person is told when the link form was filled in wrongly: per input block, never a value. */
type FormErrors = Partial<Record<(typeof LINK_BLOCKS)[keyof typeof LINK_BLOCKS], string>>;

/**
 * Reads the link form: a login, and the password with the API key, or a personal access token (as
 * the configuration asks). Nothing read is ever put in an error: errors name what is missing.
 *
 * @param asked What the form asks.
 * @param read The value of an input block ('' when empty).
 * @returns The credentials (the login, and the password with the API key or the token), or the
 *   errors to show.
 */
export function parseLinkForm(
  asked: Asked,
  read: (block: string) => string,
): { ok: true; credentials: LinkCredentials } | { ok: false; errors: FormErrors } {
  const login = read(LINK_BLOCKS.login).trim();
  const password = read(LINK_BLOCKS.password);
  const apiKey = read(LINK_BLOCKS.apiKey).trim();
  const token = read(LINK_BLOCKS.token).trim();
  const errors: FormErrors = {};
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are refused.
  const control = /[\u0000-\u001f\u007f]/;
  if (login === '') errors[LINK_BLOCKS.login] = 'Your TeamPass login, please.';
  else if ([...login].length > LINK_INPUT_MAX.login || control.test(login))
    errors[LINK_BLOCKS.login] =
      `A login of at most ${LINK_INPUT_MAX.login} characters, without control characters.`;
  const byPassword = asked !== 'token' && (password.trim() !== '' || apiKey !== '');
  const byToken = asked !== 'password' && token !== '';
  if (byPassword && byToken)
    errors[LINK_BLOCKS.token] = 'Give either your password and API key, or a token: not both.';
  else if (byToken) {
    if (token.length > LINK_INPUT_MAX.token || /\s/.test(token))
      errors[LINK_BLOCKS.token] = `A token of at most ${LINK_INPUT_MAX.token} characters, without spaces.`;
  } else if (byPassword) {
    if (password.trim() === '') errors[LINK_BLOCKS.password] = 'Your TeamPass password, please.';
    else if (password.length > LINK_INPUT_MAX.password)
      errors[LINK_BLOCKS.password] = `A password of at most ${LINK_INPUT_MAX.password} characters.`;
    if (apiKey === '') errors[LINK_BLOCKS.apiKey] = 'Your personal API key, please.';
    else if (apiKey.length > LINK_INPUT_MAX.apiKey || /\s/.test(apiKey))
      errors[LINK_BLOCKS.apiKey] =
        `An API key of at most ${LINK_INPUT_MAX.apiKey} characters, without spaces.`;
  } else if (asked === 'token') errors[LINK_BLOCKS.token] = 'Your personal access token, please.';
  else
    errors[LINK_BLOCKS.password] =
      asked === 'both'
        ? 'Your password and API key, please (or a personal access token).'
        : 'Your TeamPass password, please.';
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return {
    ok: true,
    credentials: byToken
      ? { kind: 'personal-access-token', login, personalAccessToken: token }
      : { kind: 'password', login, password, apiKey },
  };
}
