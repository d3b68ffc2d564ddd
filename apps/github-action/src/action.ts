/**
 * The Action: reads the connection from its inputs and the references from the step's `env`,
 * resolves them as `vaultline run` does (the core's `findEnvironmentReferences`,
 * `resolveReferences` acting for the client's login, `fillEnvironment`), masks every value before anything
 * could print it, then exports the values to the job's later steps (`GITHUB_ENV`) or to the
 * step's outputs (`GITHUB_OUTPUT`). With `cache-max-age`, the core's fallback for outages
 * (`resolveWithFallback`).
 *
 * @module
 */

import { homedir } from 'node:os';
import { join } from 'node:path';
import * as core from '@actions/core';
import {
  createRedactor,
  createVaultClient,
  credentialsFrom,
  exchangeOidcToken,
  fillEnvironment,
  findEnvironmentReferences,
  formatReference,
  type Redactor,
  type Reference,
  resolveReferences,
  type VaultClient,
} from '@vaultline/protocol';
import { parseMaxAge, resolveWithFallback, valueCache } from '@vaultline/value-cache';

/** The Action's inputs, as `action.yml` names them. */
export const INPUTS = {
  url: 'url',
  auth: 'auth',
  audience: 'audience',
  oidcPolicy: 'oidc-policy',
  apiKey: 'api-key',
  login: 'login',
  password: 'password',
  personalAccessToken: 'personal-access-token',
  exportEnv: 'export-env',
  cacheMaxAge: 'cache-max-age',
  cacheDir: 'cache-dir',
} as const;

/** A failure the Action reports as it is: its message names no value. */
class ActionError extends Error {}

const optional = (name: string): string | undefined => core.getInput(name) || undefined;

/** Lines of a multi-line value shorter than this are not masked apart (as `vaultline run`'s masking). */
export const MIN_MASKED_LINE = 3;

/**
 * Masks a value: the whole of it, and each of its lines (the runner matches a log line against
 * each mask, so a multi-line value printed line by line is masked only line by line), except
 * lines of fewer than {@link MIN_MASKED_LINE} characters besides spaces (a `}` of a JSON value
 * would otherwise be masked in every later log line, and reveals nothing). Nothing is printed
 * before the masks but the masks themselves.
 *
 * @param value The value.
 */
export function maskValue(value: string): void {
  if (value === '') return;
  core.setSecret(value);
  for (const line of new Set(value.split(/\r\n|\r|\n/)))
    if (line !== value && line.trim().length >= MIN_MASKED_LINE) core.setSecret(line);
}

/**
 * Runs the Action in this process: inputs from `INPUT_*`, the step's `env` from the environment.
 * Sets the exit code; never throws.
 *
 * @param env The environment; the process's by default.
 */
export async function runAction(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  let redact: Redactor = (text) => text;
  try {
    redact = await resolveStep(env, (next) => {
      redact = next;
    });
  } catch (error) {
    core.setFailed(redact(error instanceof Error ? error.message : String(error)));
  }
}

async function resolveStep(env: NodeJS.ProcessEnv, setRedact: (redact: Redactor) => void): Promise<Redactor> {
  const secrets = [INPUTS.apiKey, INPUTS.password, INPUTS.personalAccessToken].map(optional);
  // The credentials are masked first, in case they were not passed from a secret.
  for (const secret of secrets) if (secret !== undefined) maskValue(secret);
  let [apiKey] = secrets;
  const [, password, personalAccessToken] = secrets;
  const inputsRedact = createRedactor(secrets.filter((secret) => secret !== undefined));
  setRedact(inputsRedact);

  const url = optional(INPUTS.url);
  if (url === undefined) throw new ActionError(`Input required and not supplied: ${INPUTS.url}.`);
  const auth = optional(INPUTS.auth) ?? 'key';
  if (auth !== 'key' && auth !== 'oidc')
    throw new ActionError(`${INPUTS.auth}: expected key or oidc, not ${JSON.stringify(auth.slice(0, 20))}.`);
  if (auth === 'oidc') {
    if (secrets.some((secret) => secret !== undefined))
      throw new ActionError(
        `${INPUTS.auth}: oidc signs in with the job's identity token: remove ${INPUTS.apiKey}, ${INPUTS.password} and ${INPUTS.personalAccessToken}.`,
      );
    if (optional(INPUTS.cacheMaxAge) !== undefined)
      throw new ActionError(
        `${INPUTS.cacheMaxAge} seals the values with the stored credentials, and ${INPUTS.auth}: oidc stores none: remove one of them.`,
      );
    apiKey = await oidcKey(url, env);
  }
  const login = optional(INPUTS.login);
  const exportEnv = readBoolean(optional(INPUTS.exportEnv) ?? 'true', INPUTS.exportEnv);
  const maxAge = optional(INPUTS.cacheMaxAge);
  let maxAgeMs: number | undefined;
  if (maxAge !== undefined) {
    try {
      maxAgeMs = parseMaxAge(maxAge);
    } catch (error) {
      throw new ActionError(`${INPUTS.cacheMaxAge}: ${(error as Error).message}`);
    }
  }
  // Without the file, @actions/core would print the values as workflow commands: refuse instead.
  const file = exportEnv ? 'GITHUB_ENV' : 'GITHUB_OUTPUT';
  if (!env[file])
    throw new ActionError(`${file} is not set: run this Action as a step of a GitHub Actions job.`);

  // The step's env: every variable but the inputs.
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(env))
    if (value !== undefined && !name.startsWith('INPUT_')) environment[name] = value;
  const found = findEnvironmentReferences(environment);
  if (found.references.length === 0) {
    core.warning("No vaultline:// reference in this step's env: nothing to resolve.");
    return inputsRedact;
  }
  const unique = new Map<string, Reference>();
  for (const reference of found.references) {
    if (reference.connection !== undefined)
      throw new ActionError(
        `${found.variablesOf(formatReference(reference)).join(', ')}: the Action has one connection, its inputs; write the reference without "${reference.connection}@".`,
      );
    unique.set(formatReference(reference), reference);
  }

  let client: VaultClient;
  try {
    // The inputs given say the kind, by the core's rule.
    const auth = credentialsFrom({ apiKey, login, password, personalAccessToken });
    client = createVaultClient({ baseUrl: url, auth });
  } catch (error) {
    throw new ActionError((error as Error).message);
  }
  setRedact(client.redact);
  const cache =
    maxAgeMs === undefined
      ? undefined
      : valueCache({
          dir: optional(INPUTS.cacheDir) ?? join(homedir(), '.cache', 'vaultline'),
          url,
          login,
          credentials: JSON.stringify(secrets.map((secret) => secret ?? null)),
          maxAgeMs,
          warn: (message) => core.warning(client.redact(message)),
        });
  let results: Awaited<ReturnType<typeof resolveWithFallback>>;
  try {
    results = await resolveWithFallback(
      [...unique.keys()],
      // Acting for the client's login: the signed-in user (TeamPass 3), else the login input.
      () => resolveReferences(client, [...unique.values()]),
      { cache, warn: (message) => core.warning(client.redact(message)) },
    );
  } finally {
    // A TeamPass 3 session ends with the step.
    await client.dispose({ signOut: true }).catch(() => undefined);
  }
  const failures: string[] = [];
  const values = new Map<string, string>();
  for (const result of results) {
    if (result.ok) values.set(result.text, result.value);
    else failures.push(`${found.variablesOf(result.text).join(', ')}: ${result.error.message}`);
  }
  if (failures.length > 0) throw new ActionError(failures.join('\n'));

  const filled = fillEnvironment(environment, found, (text) => values.get(text));
  // Every value is masked before any is written anywhere.
  for (const variable of filled) {
    for (const secret of variable.secrets) maskValue(secret);
    maskValue(variable.value);
  }
  for (const variable of filled) {
    if (exportEnv) core.exportVariable(variable.name, variable.value);
    else core.setOutput(variable.name, variable.value);
  }
  const names = filled.map((variable) => variable.name).join(', ');
  core.info(
    `Resolved ${unique.size} reference${unique.size === 1 ? '' : 's'} into ${names}: ${exportEnv ? "exported to the job's environment for the next steps" : "set as this step's outputs"}, masked in the logs.`,
  );
  return client.redact;
}

/**
 * The job's OIDC token (from the runner, `@actions/core`'s `getIDToken`, which masks it) exchanged
 * for a short-lived key of the vault, masked too.
 */
async function oidcKey(url: string, env: NodeJS.ProcessEnv): Promise<string> {
  const audience = optional(INPUTS.audience);
  if (audience === undefined)
    throw new ActionError(
      `${INPUTS.auth}: oidc needs ${INPUTS.audience}: the audience of the server's trust policy.`,
    );
  if (!env.ACTIONS_ID_TOKEN_REQUEST_URL || !env.ACTIONS_ID_TOKEN_REQUEST_TOKEN)
    throw new ActionError(
      `${INPUTS.auth}: oidc needs the job's OIDC token, and the runner offers none: give the job "permissions: id-token: write".`,
    );
  let token: string;
  try {
    token = await core.getIDToken(audience);
  } catch (error) {
    throw new ActionError(`The runner did not give the job's OIDC token: ${(error as Error).message}`);
  }
  try {
    const { apiKey } = await exchangeOidcToken({ baseUrl: url, token, policy: optional(INPUTS.oidcPolicy) });
    maskValue(apiKey);
    return apiKey;
  } catch (error) {
    throw new ActionError(createRedactor([token])((error as Error).message));
  }
}

function readBoolean(text: string, name: string): boolean {
  if (/^(true|yes|on|1)$/i.test(text)) return true;
  if (/^(false|no|off|0)$/i.test(text)) return false;
  throw new ActionError(`${name}: expected true or false, not ${JSON.stringify(text.slice(0, 20))}.`);
}
