/**
 * One statement of the Node version, in two parts that must agree:
 *
 * - development: `.node-version` and `.nvmrc` pin the same exact version, and the root
 *   `package.json` and the `tooling/*` packages (which only run while developing) declare the
 *   pinned major and later (`>=24`);
 * - what ships (`apps/*`, `packages/*`): every package declares one runtime floor (`>=22.12`),
 *   which may be older than the development major, and the pin satisfies it.
 *
 * CONTRIBUTING.md ("Node versions") says why.
 *
 * @module
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import type { Repository } from './links.ts';

const ManifestSchema = v.looseObject({
  name: v.string(),
  engines: v.optional(v.looseObject({ node: v.optional(v.string()) })),
});

/** A range of the only form the repository uses: `>=MAJOR[.MINOR[.PATCH]]`. */
const RANGE = /^>=(\d+)(?:\.(\d+))?(?:\.(\d+))?$/;
const VERSION = /^(\d+)\.(\d+)\.(\d+)$/;

function satisfies(version: string, range: string): boolean {
  const [, ...wanted] = RANGE.exec(range) ?? [];
  const [, ...have] = VERSION.exec(version) ?? [];
  for (let i = 0; i < 3; i++) {
    const a = Number(have[i] ?? 0);
    const b = Number(wanted[i] ?? 0);
    if (a !== b) return a > b;
  }
  return true;
}

/** What the repository states about Node. */
export interface NodeStatement {
  /** The exact development version of `.node-version`. */
  readonly pin: string;
  /** The root's `engines.node`. */
  readonly development: string;
  /** `engines.node` of every workspace package, by its directory. */
  readonly packages: Readonly<Record<string, string | undefined>>;
}

/**
 * Reads every statement of the Node version.
 *
 * @param repo The repository.
 * @returns The statements.
 */
export function readNodeStatement(repo: Repository): NodeStatement & { nvmrc: string } {
  const read = (path: string) => readFileSync(join(repo.root, path), 'utf8');
  const manifest = (path: string) => v.parse(ManifestSchema, JSON.parse(read(path)));
  const packages: Record<string, string | undefined> = {};
  for (const path of repo.files.filter((file) =>
    /^(apps|packages|tooling)\/[^/]+\/package\.json$/.test(file),
  )) {
    packages[path.slice(0, -'/package.json'.length)] = manifest(path).engines?.node;
  }
  return {
    pin: read('.node-version').trim(),
    nvmrc: read('.nvmrc').trim(),
    development: manifest('package.json').engines?.node ?? '',
    packages,
  };
}

/**
 * Checks that the statements agree.
 *
 * @param statement What the repository states.
 * @returns What disagrees, one sentence each; empty when all agree.
 */
export function checkNodeStatement(statement: NodeStatement & { nvmrc: string }): string[] {
  const problems: string[] = [];
  const { pin, development } = statement;
  if (!VERSION.test(pin)) problems.push(`.node-version should hold one exact version, not "${pin}"`);
  if (statement.nvmrc !== pin) problems.push(`.nvmrc says "${statement.nvmrc}", .node-version "${pin}"`);
  if (!RANGE.test(development))
    problems.push(`the root engines.node "${development}" is not of the form >=X`);
  else if (!satisfies(pin, development))
    problems.push(`the pin ${pin} does not satisfy the root's ${development}`);
  else if (RANGE.exec(development)![1] !== pin.split('.')[0])
    problems.push(`the root's ${development} is not the pinned major ${pin.split('.')[0]}`);
  const floors = new Set<string>();
  for (const [dir, range] of Object.entries(statement.packages)) {
    if (range === undefined) {
      problems.push(`${dir}/package.json has no engines.node`);
    } else if (dir.startsWith('tooling/')) {
      if (range !== development)
        problems.push(`${dir} runs while developing: engines.node ${range}, expected ${development}`);
    } else {
      floors.add(range);
      if (!RANGE.test(range)) problems.push(`${dir}: engines.node "${range}" is not of the form >=X.Y`);
      else if (!satisfies(pin, range)) problems.push(`${dir}: the pin ${pin} does not satisfy ${range}`);
    }
  }
  if (floors.size > 1)
    problems.push(`apps and packages declare different floors: ${[...floors].sort().join(', ')}`);
  return problems;
}
