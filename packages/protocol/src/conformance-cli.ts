#!/usr/bin/env node
/**
 * `vaultline-conformance`: runs the conformance suite against a server and prints one line per
 * operation. Exits 1 when any operation fails.
 *
 * @module
 */

import { parseArgs } from 'node:util';
import { formatFindings, runConformance } from './conformance.ts';
import { EXIT } from './exit-codes.ts';

const USAGE = `usage: vaultline-conformance --base-url <url> --login <vault login> [--api-key <key>] [--no-files]
                             [--dialect auto|legacy|teampass3]

  --base-url  the server's base URL (env VAULTLINE_BASE_URL)
  --api-key   an API key that may create folders and items (env VAULTLINE_API_KEY; prefer the
              environment variable: arguments are visible to other users in the process list);
              on TeamPass 3, the login's personal API key
  --login     a vault login whose read/userpw and read/userfolders are read (env VAULTLINE_LOGIN);
              on TeamPass 3, the user who signs in
  --dialect   the server's dialect when known; detected otherwise (env VAULTLINE_DIALECT)
  --no-files  skip add/file, read/listfiles and read/files (without it, a server that has none
              of them, like TeamPass, is reported as a finding and the three are skipped)

TeamPass 3 signs in with the login's password (env VAULTLINE_PASSWORD) and API key, or with a
personal access token (env VAULTLINE_PERSONAL_ACCESS_TOKEN) where the site enables them: secrets
are read from the environment only.

The main flow uses text of the BMP only. Then each optional behaviour (four-byte-text, files,
full-text-search, key-header, other-users, multi-id-reads, url-lookup, tags-scope) is reported
on one line: SUPPORTED, MANGLES, REFUSES, ABSENT, LEAKS or FAILED, marked when it is a known
TeamPass limit, or NOT-RUN with why. A refused sign-in or key stops the run after that one try
(TeamPass locks an address out after repeated refusals). Only failed operations and FAILED checks
make the exit code 1.`;

async function main(): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      options: {
        'base-url': { type: 'string' },
        'api-key': { type: 'string' },
        login: { type: 'string' },
        dialect: { type: 'string' },
        'no-files': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return EXIT.usage;
  }
  if (values.help) {
    console.log(USAGE);
    return EXIT.ok;
  }
  const baseUrl = (values['base-url'] as string | undefined) ?? process.env.VAULTLINE_BASE_URL;
  const apiKey = (values['api-key'] as string | undefined) ?? process.env.VAULTLINE_API_KEY;
  const login = (values.login as string | undefined) ?? process.env.VAULTLINE_LOGIN;
  const password = process.env.VAULTLINE_PASSWORD || undefined;
  const personalAccessToken = process.env.VAULTLINE_PERSONAL_ACCESS_TOKEN || undefined;
  const dialect = (values.dialect as string | undefined) ?? process.env.VAULTLINE_DIALECT ?? 'auto';
  const missing = [
    baseUrl ? undefined : '--base-url (or VAULTLINE_BASE_URL)',
    apiKey || personalAccessToken ? undefined : '--api-key (or VAULTLINE_API_KEY)',
    login ? undefined : '--login (or VAULTLINE_LOGIN)',
  ].filter(Boolean);
  if (missing.length > 0) {
    console.error(`missing ${missing.join(', ')}\n\n${USAGE}`);
    return EXIT.usage;
  }
  if (dialect !== 'auto' && dialect !== 'legacy' && dialect !== 'teampass3') {
    console.error(`--dialect must be auto, legacy or teampass3\n\n${USAGE}`);
    return 2;
  }
  console.log(`conformance of ${baseUrl}`);
  const report = await runConformance({
    baseUrl: baseUrl!,
    apiKey,
    login: login!,
    password,
    personalAccessToken,
    dialect,
    files: !values['no-files'],
    onResult: (result) => {
      const mark = result.ok === true ? 'PASS' : result.ok === false ? 'FAIL' : 'SKIP';
      console.log(`${mark}  ${result.operation.padEnd(17)} ${result.detail}`);
    },
  });
  const caps = report.capabilities;
  if (caps) {
    const signIn =
      caps.credentials === 'api-key' ? `key in the ${caps.keyTransport}` : `sign-in ${caps.credentials}`;
    const yes = (value: boolean) => (value ? 'yes' : 'no');
    console.log(
      `server: ${caps.server}${caps.version ? ` ${caps.version}` : ''}; ${signIn}; ` +
        `search ${caps.search}; files ${String(caps.files)}${caps.detected ? '' : ' (not identified)'}`,
    );
    console.log(
      `also: one-time codes ${yes(caps.otp)}; tags ${yes(caps.tags)}; URL lookup ${yes(caps.urlLookup)}; ` +
        `other users ${yes(caps.otherUsers)}; rights enforced by the server ${yes(caps.enforcedRights)}`,
    );
  }
  for (const line of formatFindings(report)) console.log(line);
  return report.ok ? EXIT.ok : EXIT.error;
}

process.exitCode = await main();
