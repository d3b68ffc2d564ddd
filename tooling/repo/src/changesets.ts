/**
 * Changesets name only what exists: a changeset becomes a changelog entry that users act on, so
 * every package entry (`@vaultline/protocol/wire`) and identifier (`createVaultClient`,
 * `VAULTLINE_TRANSFER_MIN_RATE`) it puts in backticks must be in the repository, unless its
 * sentence says that it is gone (`no longer`, `removed`, `renamed`, `is gone`, or `old` → `new`).
 *
 * @module
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LinkProblem, Repository } from './links.ts';

/** A package entry: `@vaultline/<name>` and an optional subpath. */
const PACKAGE_ENTRY = /^@vaultline\/[a-z0-9-]+(?:\/[a-z0-9.-]+)?$/;
/** An identifier that looks like code: camelCase, PascalCase with a lower-case letter, or SCREAMING_SNAKE. */
const IDENTIFIER = /^(?:[a-z_$][\w$]*[A-Z][\w$]*|[A-Z][a-z0-9]+[A-Z][\w$]*|[A-Z][A-Z0-9]*_[A-Z0-9_]+)$/;
/** Words of a sentence that says a name is gone. */
const GONE = /\b(?:no longer|is gone|are gone|removed|renamed|deprecated|instead of|replaced)\b/i;
/** Where names are looked for: source, manifests and scripts, never changesets or changelogs. */
const SOURCE = /\.(?:ts|tsx|mts|js|mjs|cjs|json|ya?ml|sh)$/;

/** The names of one changeset, each with the sentence it is in. */
function namesIn(text: string): { name: string; sentence: string }[] {
  const body = text.replace(/^---\n[\s\S]*?\n---\n/, '');
  const found: { name: string; sentence: string }[] = [];
  for (const sentence of body.split(/(?<=[.!?])\s+(?=[A-Z`(])/)) {
    for (const match of sentence.matchAll(/`([^`\n]+)`(\s*→)?/g)) {
      const name = match[1]!;
      if (match[2] !== undefined || GONE.test(sentence)) continue;
      if (PACKAGE_ENTRY.test(name) || IDENTIFIER.test(name)) found.push({ name, sentence });
    }
  }
  return found;
}

/** Whether a package entry is in its package's `exports` (or is the package itself). */
function entryExists(manifests: Map<string, { exports?: unknown }>, entry: string): boolean {
  const [scope, name, ...rest] = entry.split('/');
  const manifest = manifests.get(`${scope}/${name}`);
  if (!manifest) return false;
  if (rest.length === 0) return true;
  const exports = manifest.exports;
  return typeof exports === 'object' && exports !== null && `./${rest.join('/')}` in exports;
}

/**
 * Finds the names of changesets that nothing in the repository has.
 *
 * @param repo The repository.
 * @returns One problem per name; empty when every name exists.
 */
export function checkChangesetNames(repo: Repository): LinkProblem[] {
  const manifests = new Map<string, { exports?: unknown }>();
  const sources: string[] = [];
  for (const file of repo.files) {
    if (file.startsWith('.changeset/') || !SOURCE.test(file)) continue;
    const text = readFileSync(join(repo.root, file), 'utf8');
    sources.push(text);
    if (file.endsWith('package.json')) {
      const manifest = JSON.parse(text) as { name?: string; exports?: unknown };
      if (manifest.name) manifests.set(manifest.name, manifest);
    }
  }
  const corpus = sources.join('\n');
  const problems: LinkProblem[] = [];
  for (const file of repo.files.filter((path) => /^\.changeset\/[^/]+\.md$/.test(path))) {
    if (file === '.changeset/README.md') continue;
    for (const { name } of namesIn(readFileSync(join(repo.root, file), 'utf8'))) {
      const exists = PACKAGE_ENTRY.test(name)
        ? entryExists(manifests, name)
        : new RegExp(`(?<![\\w$])${name.replace(/\$/g, '\\$')}(?![\\w$])`).test(corpus);
      if (!exists)
        problems.push({
          where: file,
          target: name,
          problem: 'names something the repository does not have: name what exists, or say that it is gone',
        });
    }
  }
  return problems;
}
