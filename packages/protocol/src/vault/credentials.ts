/**
 * What a client signs in with: credentials that say their kind (`kind`, as `@octokit/auth-*`'s
 * strategies say their `type`), one kind per way of signing in, and the one rule that reads the
 * kindless object of earlier versions. Apps name kinds by {@link CredentialKind} and say them with
 * {@link CREDENTIAL_KINDS}; none defines its own.
 *
 * @module
 */

import { VaultError } from '../errors.ts';

/**
 * The ways of signing in, with their names in a sentence:
 *
 * - `api-key`: an API key alone (the legacy API: TeamPass 2, the Vaultline server);
 * - `password`: the login's password with the user's personal API key (TeamPass 3);
 * - `personal-access-token`: a personal access token, where TeamPass 3 enables them.
 */
export const CREDENTIAL_KINDS = {
  'api-key': 'API key',
  password: 'password and API key',
  'personal-access-token': 'personal access token',
} as const;

/** One way of signing in: a key of {@link CREDENTIAL_KINDS}. */
export type CredentialKind = keyof typeof CREDENTIAL_KINDS;

/** Every {@link CredentialKind}, in order: for schemas and pickers. */
export const CREDENTIAL_KIND_LIST = Object.keys(CREDENTIAL_KINDS) as readonly CredentialKind[];

/** A secret field of credentials. */
export type CredentialSecret = 'apiKey' | 'password' | 'personalAccessToken';

/** The secrets each kind signs in with, every one required; the other secrets have no place in it. */
export const CREDENTIAL_SECRETS: Readonly<Record<CredentialKind, readonly CredentialSecret[]>> = {
  'api-key': ['apiKey'],
  password: ['password', 'apiKey'],
  'personal-access-token': ['personalAccessToken'],
};

/** Whether a kind signs a login in (TeamPass 3): then `login` is required. */
const SIGNS_IN: Readonly<Record<CredentialKind, boolean>> = {
  'api-key': false,
  password: true,
  'personal-access-token': true,
};

/**
 * An API key (the legacy API). `login` names the person the app acts for (folders listed,
 * searches and references resolved as that user); the key itself acts for nobody in particular.
 */
export interface ApiKeyCredentials {
  readonly kind: 'api-key';
  /** The API key. A secret. */
  readonly apiKey: string;
  /** The login acted for. */
  readonly login?: string | undefined;
}

/** A login with its password and the user's personal API key (TeamPass 3): every call runs as that user. */
export interface PasswordCredentials {
  readonly kind: 'password';
  /** The login signed in as. */
  readonly login: string;
  /** The user's password. A secret. */
  readonly password: string;
  /** The user's personal API key (their profile page). A secret. */
  readonly apiKey: string;
}

/** A login with a personal access token (TeamPass 3, where the site enables them): every call runs as that user. */
export interface PersonalAccessTokenCredentials {
  readonly kind: 'personal-access-token';
  /** The login signed in as (TeamPass 3 signs the token in with it). */
  readonly login: string;
  /** The token. A secret. */
  readonly personalAccessToken: string;
}

/**
 * What a client signs in with: the one credentials type of every app, told apart by `kind`.
 * Every field but `kind` and `login` is a secret: never logged, never in an error.
 */
export type VaultCredentials = ApiKeyCredentials | PasswordCredentials | PersonalAccessTokenCredentials;

/**
 * The fields credentials are made of, each optional: what an app gathers (from the environment, a
 * form, a store) before it knows the kind, and {@link secretsOf} reads.
 */
export interface CredentialFields {
  /** The API key. A secret. */
  apiKey?: string | undefined;
  /** The login. */
  login?: string | undefined;
  /** The password. A secret. */
  password?: string | undefined;
  /** The personal access token. A secret. */
  personalAccessToken?: string | undefined;
}

/**
 * Credentials without a kind, as earlier versions took them.
 *
 * @deprecated Pass {@link VaultCredentials} with its `kind`. Read by one rule: a personal access
 * token with a login signs in with it, else a password with a login, else an API key; the fields
 * that kind does not use are left out.
 */
export interface KindlessCredentials extends CredentialFields {
  readonly kind?: undefined;
}

/** `createVaultClient`'s `auth`: an API key, or {@link VaultCredentials}. */
export type VaultAuth = string | VaultCredentials | KindlessCredentials;

/**
 * The kind fields sign in with, by the one rule that reads kindless credentials: a personal
 * access token with a login, else a password with a login, else an API key; without an API key,
 * the token's or the password's kind (which then lacks its login).
 *
 * @param fields What was gathered.
 * @returns The kind.
 */
export function credentialKindOf(fields: CredentialFields): CredentialKind {
  const login = fields.login?.trim();
  if (fields.personalAccessToken && login) return 'personal-access-token';
  if (fields.password && login) return 'password';
  if (fields.apiKey) return 'api-key';
  return fields.personalAccessToken ? 'personal-access-token' : fields.password ? 'password' : 'api-key';
}

const isKind = (kind: unknown): kind is CredentialKind =>
  typeof kind === 'string' && Object.hasOwn(CREDENTIAL_KINDS, kind);

/**
 * The credentials of an `auth` option, checked: a string is an API key; an object with a `kind`
 * must hold that kind's fields, and no other secret; a kindless one is read by the rule of
 * {@link KindlessCredentials}. No error says a secret's value.
 *
 * @param auth The option.
 * @returns The credentials.
 * @throws {VaultError} `invalid_request` for anything else: an unknown kind, a field the kind
 *   needs that is missing or empty, or a secret it has no place for.
 */
export function credentialsOf(auth: VaultAuth | undefined): VaultCredentials {
  if (typeof auth === 'string') return { kind: 'api-key', apiKey: auth };
  if (typeof auth !== 'object' || auth === null) {
    throw new VaultError(
      'invalid_request',
      `Expected auth to be an API key or credentials with a kind (${kindsSaid()}), received ${auth === null ? 'null' : typeof auth}.`,
    );
  }
  const given = auth as CredentialFields & { kind?: unknown };
  if (given.kind === undefined) return kindless(given);
  if (!isKind(given.kind)) {
    throw new VaultError(
      'invalid_request',
      `Expected auth.kind to be one of ${kindsSaid()}, received ${typeof given.kind === 'string' ? JSON.stringify(given.kind.slice(0, 40)) : typeof given.kind}.`,
    );
  }
  return pick(given.kind, given, true);
}

/** The deprecated kindless credentials, read by {@link credentialKindOf}; a failure says every way. */
function kindless(fields: CredentialFields): VaultCredentials {
  const kind = credentialKindOf(fields);
  const { missing } = problemsOf(kind, fields, false);
  if (missing.length > 0) {
    throw new VaultError(
      'invalid_request',
      `Expected auth to be an API key, a login with its password and the user's API key, or a login with a personal access token: missing ${missing.join(', ')}.`,
    );
  }
  return pick(kind, fields, false);
}

/**
 * Credentials of a kind from the fields an app gathered (environment variables, a form, a store):
 * that kind's fields, the others left out.
 *
 * @param fields What was gathered.
 * @param kind How they sign in; by default what they can sign in with ({@link credentialKindOf}).
 * @returns The credentials.
 * @throws {VaultError} `invalid_request` when a field the kind needs is missing or empty.
 */
export function credentialsFrom(
  fields: CredentialFields,
  kind: CredentialKind = credentialKindOf(fields),
): VaultCredentials {
  return pick(kind, fields, false);
}

/** What a kind needs that fields lack and, with `strict`, the secrets they hold that it has no place for. */
function problemsOf(
  kind: CredentialKind,
  fields: CredentialFields,
  strict: boolean,
): { missing: string[]; foreign: CredentialSecret[] } {
  const needed = CREDENTIAL_SECRETS[kind];
  const loginMissing = SIGNS_IN[kind] && loginOf(fields) === undefined;
  return {
    missing: [
      ...(loginMissing ? ['login'] : []),
      ...needed.filter((field) => typeof fields[field] !== 'string' || fields[field] === ''),
    ],
    foreign: strict
      ? (['apiKey', 'password', 'personalAccessToken'] as const).filter(
          (field) => !needed.includes(field) && fields[field] !== undefined,
        )
      : [],
  };
}

/** The login of fields, when it says one. */
const loginOf = (fields: CredentialFields): string | undefined =>
  typeof fields.login === 'string' && fields.login.trim() !== '' ? fields.login : undefined;

/** The fields of a kind, checked; with `strict`, another secret is an error too. */
function pick(kind: CredentialKind, fields: CredentialFields, strict: boolean): VaultCredentials {
  const { missing, foreign } = problemsOf(kind, fields, strict);
  if (missing.length > 0 || foreign.length > 0) {
    const problems = [
      ...(missing.length > 0 ? [`missing ${missing.join(', ')}`] : []),
      ...(foreign.length > 0 ? [`${foreign.join(', ')} has no place in them`] : []),
    ];
    const needs = [...(SIGNS_IN[kind] ? ['login'] : []), ...CREDENTIAL_SECRETS[kind]].join(', ');
    throw new VaultError(
      'invalid_request',
      `Expected ${kind} credentials (${CREDENTIAL_KINDS[kind]}: ${needs}): ${problems.join('; ')}.`,
    );
  }
  const login = loginOf(fields);
  if (kind === 'api-key') return { kind, apiKey: fields.apiKey!, ...(login === undefined ? {} : { login }) };
  if (kind === 'password') return { kind, login: login!, password: fields.password!, apiKey: fields.apiKey! };
  return { kind, login: login!, personalAccessToken: fields.personalAccessToken! };
}

const kindsSaid = () => Object.keys(CREDENTIAL_KINDS).join(', ');

/**
 * The fields of credentials, whatever their kind: what the dialects' implementations read.
 *
 * @param credentials The credentials.
 * @returns Their fields; those the kind does not have are `undefined`.
 */
export function fieldsOf(credentials: VaultCredentials): CredentialFields {
  const { kind: _kind, ...fields } = credentials;
  return fields;
}

/**
 * The secrets of credentials (of any kind, or the fields an app gathered), never the login: what a
 * log redacts while the credentials are held.
 *
 * @param credentials The credentials.
 * @returns The password, the API key and the personal access token that are set.
 */
export function secretsOf(credentials: VaultCredentials | CredentialFields): string[] {
  const fields = credentials as CredentialFields;
  return [fields.password, fields.apiKey, fields.personalAccessToken].filter(
    (secret): secret is string => typeof secret === 'string' && secret !== '',
  );
}
