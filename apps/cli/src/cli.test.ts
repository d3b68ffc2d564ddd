import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
/** Prints, at exit, every module of the program that was loaded (its file:// URLs), one a line, on stderr. */
const RECORD_LOADS = `data:text/javascript,${encodeURIComponent(
  "import { registerHooks } from 'node:module'; const seen = []; registerHooks({ load(url, context, next) { if (url.startsWith('file:')) seen.push(url); return next(url, context); } }); process.on('exit', () => process.stderr.write(seen.join('\\n')));",
)}`;

/** Runs the built `vaultline` with `args`: what it printed and which of its modules it loaded. */
function spawnLoaded(args: string[]): { stdout: string; loaded: string[] } {
  const result = spawnSync(process.execPath, ['--import', RECORD_LOADS, CLI, ...args], { encoding: 'utf8' });
  expect(result.status).toBe(0);
  return {
    stdout: result.stdout,
    loaded: result.stderr.split('\n').filter((line) => line.startsWith('file:')),
  };
}

describe('vaultline --version', () => {
  it('prints the version without loading the program, its commands or schemas', () => {
    for (const flag of ['--version', '-V']) {
      const child = spawnLoaded([flag]);
      expect(child.stdout).toBe(`${VERSION}\n`);
      expect(child.loaded.map((url) => url.slice(url.lastIndexOf('/dist/')))).toEqual(['/dist/cli.js']);
    }
  });

  it('goes through the program when more than the flag is given', () => {
    const child = spawnLoaded(['--version', '--help']);
    expect(child.loaded.some((url) => url.endsWith('/dist/main.js'))).toBe(true);
  });
});
