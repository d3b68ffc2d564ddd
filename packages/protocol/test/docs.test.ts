import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { validate } from '@readme/openapi-parser';
import type { OpenAPIV3_1 } from 'openapi-types';
import { describe, expect, it } from 'vitest';
import {
  DOMAIN_FILE,
  GENERATED_BLOCKS,
  LIST_END,
  LIST_FILES,
  LIST_START,
  OPENAPI_FILE,
  PROFILE_FILE,
  PROFILES_START,
  REPO_ROOT,
  renderEndpointList,
  TEAMPASS3_FILE,
  withEndpointList,
  withProfileTable,
} from '../scripts/docs.ts';
import { ENDPOINT_NAMES, endpoints } from '../src/legacy/endpoints.ts';
import { createOpenApiDocument, ERROR_ANSWERS } from '../src/legacy/openapi.ts';
import { TEAMPASS_PROFILE_DIFFERENCES } from '../src/legacy/profiles.ts';
import { DOMAIN_METHODS } from '../src/vault/operations.ts';

const REGENERATE = 'out of date: run `pnpm --filter @vaultline/protocol docs:generate` and commit the result';

async function read(file: string): Promise<string> {
  return readFile(join(REPO_ROOT, file), 'utf8');
}

describe('docs/openapi.json', () => {
  it('is the document the endpoint table generates', async () => {
    const checkedIn: unknown = JSON.parse(await read(OPENAPI_FILE));
    expect(checkedIn, `${OPENAPI_FILE} is ${REGENERATE}`).toEqual(createOpenApiDocument());
  });

  it('is a valid OpenAPI 3.1 document (@readme/openapi-parser: schema, $refs, path parameters, operation ids)', async () => {
    const checkedIn = JSON.parse(await read(OPENAPI_FILE)) as OpenAPIV3_1.Document;
    const result = await validate(checkedIn);
    expect(result.valid ? [] : result.errors.map((e) => e.message)).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.specification).toBe('OpenAPI');
  });

  it('fails validation when a path segment is not declared, so the check can fail', async () => {
    const broken = structuredClone(createOpenApiDocument()) as unknown as OpenAPIV3_1.Document;
    const row = endpoints.readItems;
    delete (broken.paths![`/api/index.php${row.path}`]!.get as { parameters?: unknown }).parameters;
    const result = await validate(broken);
    expect(result.valid).toBe(false);
  });
});

describe('endpoint lists', () => {
  it.each(LIST_FILES)('%s lists exactly the operations of the table', async (file) => {
    const markdown = await read(file);
    expect(markdown, `the endpoint list of ${file} is ${REGENERATE}`).toBe(withEndpointList(markdown, file));
    const list = markdown.slice(markdown.indexOf(LIST_START), markdown.indexOf(LIST_END));
    const listed = [...list.matchAll(/^\| `([a-z_]+(?:\/[a-z]+)?)` \|/gm)].map((m) => m[1]);
    expect(listed).toEqual([...ENDPOINT_NAMES.map((name) => endpoints[name].operation), 'info/version']);
  });

  it('refuses a file without the markers rather than losing its text', () => {
    expect(() => withEndpointList('# no list here\n', 'x.md')).toThrow(/x\.md has no/);
  });

  it('links the OpenAPI document relative to each file', () => {
    expect(renderEndpointList('openapi.json')).toContain('](openapi.json)');
    expect(withEndpointList(`${LIST_START}\nold\n${LIST_END}`, 'docs/api.md')).toContain('](openapi.json)');
    expect(withEndpointList(`${LIST_START}\nold\n${LIST_END}`, 'README.md')).toContain(
      '](docs/openapi.json)',
    );
  });
});

describe('docs/api.md errors', () => {
  it('lists the same statuses and codes as the error answers of the document', async () => {
    const markdown = await read('docs/api.md');
    const section = markdown.slice(markdown.indexOf('## Errors'), markdown.indexOf('## Access model'));
    const documented = [...section.matchAll(/^\| (\d{3}) \| `([a-z_]+)` \|/gm)].map((m) => `${m[1]} ${m[2]}`);
    const generated = ERROR_ANSWERS.flatMap((answer) =>
      answer.codes.map((code) => `${answer.status} ${code}`),
    );
    // A status and code two answers share (503 server: transfers and the rest) is one row.
    expect(documented.sort()).toEqual([...new Set(generated)].sort());
  });
});

describe('the teampass profile in docs/api.md', () => {
  it('lists every difference of the profile, as generated', async () => {
    const markdown = await read(PROFILE_FILE);
    expect(markdown, `the profile table of ${PROFILE_FILE} is ${REGENERATE}`).toBe(
      withProfileTable(markdown, PROFILE_FILE),
    );
    const table = markdown.slice(markdown.indexOf(PROFILES_START));
    for (const difference of TEAMPASS_PROFILE_DIFFERENCES) expect(table).toContain(`| ${difference.topic} |`);
  });

  it('refuses a file without the markers', () => {
    expect(() => withProfileTable('# none\n', 'x.md')).toThrow(/x\.md has no/);
  });
});

describe('the generated blocks', () => {
  it.each(GENERATED_BLOCKS)('$what of $file is as the tables make it', async (block) => {
    const markdown = await read(block.file);
    expect(markdown, `${block.what} of ${block.file} is ${REGENERATE}`).toBe(block.apply(markdown));
  });
});

/**
 * The per-operation tables written by hand (what no table holds: an answer's body, what upstream
 * mode does, how TeamPass 3 carries an operation): each must have a row for every operation.
 */
const HAND_TABLES = [
  { file: 'docs/api.md', section: '## Responses', by: 'operation' },
  { file: 'docs/upstream.md', section: '## What maps to what', by: 'operation' },
  { file: TEAMPASS3_FILE, section: '## The adapter', by: 'wire method' },
] as const;

describe('the tables written by hand', () => {
  it.each(HAND_TABLES)('$file ($section) has a row for every operation', async ({ file, section, by }) => {
    const markdown = await read(file);
    const start = markdown.indexOf(`\n${section}\n`);
    expect(start, `${file} has no "${section}"`).toBeGreaterThan(-1);
    const end = markdown.indexOf('\n## ', start + 1);
    const firstCells = markdown
      .slice(start, end === -1 ? undefined : end)
      .split('\n')
      .filter((line) => line.startsWith('| '))
      .map((line) => line.split('|')[1]!);
    const missing = ENDPOINT_NAMES.map((name) =>
      by === 'operation' ? endpoints[name].operation : name,
    ).filter(
      (word) => !firstCells.some((cell) => cell.includes(`\`${word}\``) || cell.includes(`\`${word}/`)),
    );
    expect(missing, `rows missing from ${file} (${section})`).toEqual([]);
  });
});

describe('docs/spec.md', () => {
  it('describes the request of every operation of the table in §4', async () => {
    const spec = await read('docs/spec.md');
    const section = spec.slice(spec.indexOf('\n## 4. '), spec.indexOf('\n## 5. '));
    const missing = ENDPOINT_NAMES.map((name) => `${endpoints[name].method} ${endpoints[name].path}`).filter(
      (request) => !section.includes(`\`${request}\``),
    );
    expect(missing, 'requests missing from docs/spec.md §4').toEqual([]);
  });
});

describe("the package README's client table", () => {
  it('describes every domain method that sends an operation', async () => {
    const readme = await read(DOMAIN_FILE);
    const table = readme.slice(
      readme.indexOf('\n## The client\n'),
      readme.indexOf('<!-- domain-methods:start'),
    );
    // A cell names its first method in full (`vault.items.create(item)`), the next ones short (`update(id)`).
    const described = table.split('\n').flatMap((line) => {
      const cell = line.startsWith('| `vault.') ? line.split('|')[1]! : '';
      const group = /`vault\.(\w+)\./.exec(cell)?.[1];
      return [...cell.matchAll(/`(?:vault\.\w+\.)?(\w+)\(/g)].map((m) => `${group}.${m[1]}`);
    });
    const named = new Set(ENDPOINT_NAMES.flatMap((name) => DOMAIN_METHODS[name]));
    expect(
      [...named].filter((method) => !described.includes(method)),
      `methods missing from the client table of ${DOMAIN_FILE}`,
    ).toEqual([]);
  });
});
