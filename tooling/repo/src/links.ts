/**
 * The link check: every relative link of every Markdown file, and every path named by a `@see`
 * tag in a source file, must reach a file of the repository (and the anchor or `§` section it
 * names). Nothing may point outside the repository: a clone has nothing there.
 *
 * @module
 */

import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { anchors, headings, markdownLinks } from './markdown.ts';
import { REPO_ROOT, repositoryFiles } from './repo-files.ts';

/** One broken link: where it is, what it says, what is wrong. */
export interface LinkProblem {
  /** The file and line, e.g. `docs/api.md:4`. */
  readonly where: string;
  /** The target as written. */
  readonly target: string;
  /** What is wrong with it. */
  readonly problem: string;
}

/** Source files whose `@see` tags are checked. */
const SOURCE = /\.(?:[cm]?[jt]s|tsx)$/;

/** A URL with a scheme (`https:`, `mailto:`, `command:`) or protocol-relative: not a file. */
const EXTERNAL = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

/** A `@see` tag at the start of a comment line: `@see <path> [§4.2, §4.3]`. */
const SEE_TAG = /^\s*(?:\/\/+|\/\*+|\*)\s*@see\s+(\S+)(.*)$/;

/** A repository with its files read once. */
export interface Repository {
  /** Its root. */
  readonly root: string;
  /** Its files, relative, `/`-separated. */
  readonly files: readonly string[];
}

/**
 * Opens a repository for checking.
 *
 * @param root The root; the one this package belongs to by default.
 * @returns The repository.
 */
export function openRepository(root: string = REPO_ROOT): Repository {
  return { root, files: repositoryFiles(root) };
}

function createResolver(repo: Repository) {
  const anchorCache = new Map<string, Set<string>>();
  const headingCache = new Map<string, string[]>();
  const text = (path: string) => readFileSync(join(repo.root, path), 'utf8');
  return {
    /** The target's path relative to the root, or why it does not resolve. */
    locate(from: string, path: string, base: 'file' | 'root'): { path: string } | { problem: string } {
      let decoded: string;
      try {
        decoded = decodeURIComponent(path);
      } catch {
        return { problem: 'is not valid percent-encoding' };
      }
      const start = base === 'root' || decoded.startsWith('/') ? repo.root : join(repo.root, dirname(from));
      const absolute = normalize(join(start, decoded));
      const inside = relative(repo.root, absolute);
      if (inside === '..' || inside.startsWith(`..${sep}`))
        return { problem: 'points outside the repository' };
      if (!existsSync(absolute)) return { problem: 'does not exist' };
      return { path: inside.split(sep).join('/') };
    },
    anchors(path: string): Set<string> {
      let found = anchorCache.get(path);
      if (found === undefined) {
        found = anchors(text(path));
        anchorCache.set(path, found);
      }
      return found;
    },
    headings(path: string): string[] {
      let found = headingCache.get(path);
      if (found === undefined) {
        found = headings(text(path)).map((heading) => heading.text);
        headingCache.set(path, found);
      }
      return found;
    },
    isFile(path: string): boolean {
      return statSync(join(repo.root, path)).isFile();
    },
  };
}

/**
 * Checks every relative link of every Markdown file.
 *
 * @param repo The repository.
 * @returns The broken links; empty when all resolve.
 */
export function checkMarkdownLinks(repo: Repository): LinkProblem[] {
  const resolver = createResolver(repo);
  const problems: LinkProblem[] = [];
  for (const file of repo.files.filter((path) => path.endsWith('.md'))) {
    for (const link of markdownLinks(readFileSync(join(repo.root, file), 'utf8'))) {
      if (EXTERNAL.test(link.target)) continue;
      const report = (problem: string) =>
        problems.push({ where: `${file}:${link.line}`, target: link.target, problem });
      const hash = link.target.indexOf('#');
      const path = hash < 0 ? link.target : link.target.slice(0, hash);
      const anchor = hash < 0 ? undefined : link.target.slice(hash + 1);
      const located = path === '' ? { path: file } : resolver.locate(file, path, 'file');
      if ('problem' in located) {
        report(located.problem);
        continue;
      }
      if (anchor === undefined || anchor === '' || !located.path.endsWith('.md')) continue;
      if (!resolver.isFile(located.path) || !resolver.anchors(located.path).has(decodeURIComponent(anchor))) {
        report(`has no heading or anchor #${anchor}`);
      }
    }
  }
  return problems;
}

/**
 * Checks every path named by a `@see` tag in a source file: relative to the file when it starts
 * with `.`, else relative to the repository root (`docs/spec.md`); a `#anchor` must exist, and
 * each `§4.2` after it must be a section heading of the file (`### 4.2 Write endpoints`). Tags
 * that name a URL or a symbol are not paths and are left alone.
 *
 * @param repo The repository.
 * @returns The broken paths; empty when all resolve.
 */
export function checkSeeTags(repo: Repository): LinkProblem[] {
  const resolver = createResolver(repo);
  const problems: LinkProblem[] = [];
  for (const file of repo.files.filter((path) => SOURCE.test(path))) {
    const lines = readFileSync(join(repo.root, file), 'utf8').split('\n');
    for (const [index, line] of lines.entries()) {
      const tag = SEE_TAG.exec(line);
      if (!tag) continue;
      const target = tag[1]!;
      if (EXTERNAL.test(target) || target.startsWith('{@') || !/[/.]/.test(target)) continue;
      const report = (problem: string) => problems.push({ where: `${file}:${index + 1}`, target, problem });
      const [path = '', anchor] = target.split('#');
      const located = resolver.locate(file, path, path.startsWith('.') ? 'file' : 'root');
      if ('problem' in located) {
        report(located.problem);
        continue;
      }
      if (!located.path.endsWith('.md')) continue;
      if (anchor !== undefined && !resolver.anchors(located.path).has(anchor)) {
        report(`has no heading or anchor #${anchor}`);
      }
      for (const section of tag[2]!.matchAll(/§\s*(\d+(?:\.\d+)*)/g)) {
        const number = section[1]!;
        const heading = new RegExp(`^${number.replace(/\./g, '\\.')}\\.?(?:\\s|$)`);
        if (!resolver.headings(located.path).some((text) => heading.test(text))) {
          report(`has no section §${number}`);
        }
      }
    }
  }
  return problems;
}

/**
 * Formats problems one per line, for a test's failure message.
 *
 * @param problems The problems.
 * @returns The lines.
 */
export function describeProblems(problems: readonly LinkProblem[]): string {
  return problems.map((p) => `${p.where}: ${p.target} ${p.problem}`).join('\n');
}
