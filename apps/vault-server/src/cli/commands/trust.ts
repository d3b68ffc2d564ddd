/**
 * `vaultline-server trust add|list|remove`: trust policies, under which a workload (a CI job, a
 * pod) exchanges the identity token its platform gives it for a short-lived key (`POST
 * /api/auth/oidc`). A policy is bound like a key: `--user`, or `--upstream-account` with the scope
 * options of `keys create`.
 *
 * @module
 */

import { Command, InvalidArgumentError } from 'commander';
import { parseClaim } from '../../oidc/claim-pattern.ts';
import { type CliContext, withAdmin } from '../context.ts';
import { collect } from '../options.ts';
import { list } from '../output.ts';
import { upstreamOptionsOf } from './keys.ts';

/** Reads a duration: `90s`, `15m`, `2h`. */
function durationOf(name: string): (text: string) => number {
  return (text) => {
    const found = /^([1-9][0-9]{0,5})([smh])$/.exec(text.trim());
    if (!found) throw new InvalidArgumentError(`Expected ${name} as a duration like 15m, 1h or 900s.`);
    return Number(found[1]) * { s: 1, m: 60, h: 3600 }[found[2] as 's' | 'm' | 'h'];
  };
}

/** Reads the `--claim` options into one record; a claim named twice is a mistake. */
function claimsOf(texts: readonly string[]): Record<string, string> {
  const claims: Record<string, string> = {};
  for (const text of texts) {
    const [name, pattern] = parseClaim(text);
    if (name in claims) throw new Error(`The claim ${name} is given twice.`);
    claims[name] = pattern;
  }
  return claims;
}

/**
 * The `trust` command group.
 *
 * @param context Where output goes.
 * @returns The command.
 */
export function trustCommand(context: CliContext): Command {
  const { io } = context;
  const trust = new Command('trust').description(
    'Trust policies: CI jobs and pods exchange their OIDC identity token for a short-lived key.',
  );
  trust
    .command('add')
    .description('Add a trust policy.')
    .requiredOption('--name <name>', 'a unique name for the policy')
    .requiredOption(
      '--issuer <url>',
      'the token issuer (its iss), e.g. https://token.actions.githubusercontent.com',
    )
    .requiredOption('--audience <aud>', 'the audience the token must be issued for (its aud)')
    .option(
      '--claim <key=value>',
      'a claim the token must carry, exactly, or a prefix ending in * after / or : (ref=refs/heads/*); repeatable, at least one',
      collect,
      [],
    )
    .option(
      '--jwks-url <url>',
      "the issuer's key set, instead of its discovery document (a cluster the server cannot discover)",
    )
    .option('--user <login>', "bind the keys to this user of the server's own vault")
    .option('--upstream-account <name>', 'upstream mode: bind the keys to this account (upstream add)')
    .option('--folder <id>', 'upstream: a folder of the scope (repeatable)', collect, [])
    .option(
      '--folder-path <path>',
      'upstream: a folder of the scope by path, titles joined by "/" (repeatable; TeamPass 3)',
      collect,
      [],
    )
    .option('--all-folders', 'upstream: every folder the account may reach')
    .option('--subfolders', 'upstream: the scope includes the subfolders of its folders (TeamPass 3)')
    .option('--write', 'upstream: the keys may add, update and delete (read-only without it)')
    .option(
      '--ttl <duration>',
      "how long a key lives (never past the token's expiry): 15m by default",
      durationOf('--ttl'),
    )
    .option(
      '--max-token-age <duration>',
      'the oldest token accepted, by its iat: 1h by default',
      durationOf('--max-token-age'),
    )
    .action(
      async (options: {
        name: string;
        issuer: string;
        audience: string;
        claim: string[];
        jwksUrl?: string;
        user?: string;
        upstreamAccount?: string;
        folder: string[];
        folderPath: string[];
        allFolders?: boolean;
        subfolders?: boolean;
        write?: boolean;
        ttl?: number;
        maxTokenAge?: number;
      }) => {
        const claims = claimsOf(options.claim);
        if ((options.user === undefined) === (options.upstreamAccount === undefined))
          throw new Error('Bind the policy to --user <login> or to --upstream-account <name>.');
        const upstream = upstreamOptionsOf(options);
        await withAdmin((admin) =>
          admin.addTrustPolicy({
            name: options.name,
            issuer: options.issuer,
            audience: options.audience,
            claims,
            jwksUrl: options.jwksUrl,
            login: options.user,
            upstream,
            ttlSeconds: options.ttl,
            maxTokenAgeSeconds: options.maxTokenAge,
          }),
        );
        io.out(`Added trust policy ${options.name}.\n`);
      },
    );
  trust
    .command('list')
    .description('List trust policies.')
    .option('--json', 'one JSON record per line')
    .action(async (options: { json?: boolean }) => {
      const found = await withAdmin((admin) => admin.listTrustPolicies());
      list(
        io,
        options.json,
        found.map((p) => ({
          name: p.name,
          issuer: p.issuer,
          audience: p.audience,
          claims: Object.entries(p.claims)
            .map(([name, pattern]) => `${name}=${pattern}`)
            .join(' '),
          bound: p.login ?? `upstream ${p.upstream?.account ?? ''}`,
          scope:
            p.upstream === undefined
              ? ''
              : `${p.upstream.folders === 'all' ? 'all' : [...p.upstream.folders, ...(p.upstream.paths ?? [])].join(',')}${p.upstream.subfolders ? '+sub' : ''}`,
          write: p.upstream === undefined ? '' : p.upstream.write ? 'yes' : 'no',
          ttl: `${p.ttlSeconds}s`,
          created: p.createdAt,
        })),
        found,
      );
    });
  trust
    .command('remove')
    .description('Remove a trust policy; the keys it issued stop working.')
    .requiredOption('--name <name>', 'the policy to remove')
    .action(async (options: { name: string }) => {
      const { revoked } = await withAdmin((admin) => admin.removeTrustPolicy(options.name));
      io.out(
        `Removed trust policy ${options.name}; ${revoked} live key${revoked === 1 ? '' : 's'} revoked.\n`,
      );
    });
  return trust;
}
