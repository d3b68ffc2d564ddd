import { readFileSync } from 'node:fs';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { complexityFromTeamPass3 } from './adapter.ts';
import { type TeamPass3EndpointName, teampass3Endpoints } from './endpoints.ts';
import {
  TeamPass3ItemListSchema,
  TeamPass3ProblemSchema,
  TeamPass3WritableFolderListSchema,
} from './schemas.ts';

const Line = v.object({
  seq: v.number(),
  method: v.string(),
  path: v.string(),
  status: v.number(),
  content_type: v.string(),
  body: v.string(),
});

const TRANSCRIPT = readFileSync(
  new URL('../../test/fixtures/teampass3-transcripts.jsonl', import.meta.url),
  'utf8',
)
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => v.parse(Line, JSON.parse(line)));

/** Recorded success answers no row reads, and why. */
const UNPARSEABLE: Record<number, string> = {
  4: "TeamPass's OpenAPI document was cut at 4,000 characters when recorded",
  98: 'misc/refreshExtensionSettings is not in the table: Vaultline never asks for the browser extension key',
  167: 'the CORS preflight answers no body',
};

/** The row of the table a recorded request used. */
function rowOf(method: string, path: string): TeamPass3EndpointName | undefined {
  const [route = '', query = ''] = path.replace(/^\/api(\/index\.php)?(\/v1)?/, '').split('?');
  if (route === '/item/get') return new URLSearchParams(query).has('id') ? 'getItem' : 'searchItems';
  for (const [name, row] of Object.entries(teampass3Endpoints)) {
    if (row.path === route && row.method === method) return name as TeamPass3EndpointName;
  }
  return undefined;
}

describe('the TeamPass 3 schemas against the recorded TeamPass 3.2.1.5', () => {
  const successes = TRANSCRIPT.filter((line) => line.status >= 200 && line.status < 300);

  it.each(successes.filter((line) => !(line.seq in UNPARSEABLE)).map((line) => [line.seq, line] as const))(
    'parses the success body of seq %i with its row',
    (_seq, line) => {
      const name = rowOf(line.method, line.path);
      expect(name, `${line.method} ${line.path} has a row`).toBeDefined();
      const result = v.safeParse(teampass3Endpoints[name!].schema, JSON.parse(line.body));
      expect(result.issues).toBeUndefined();
    },
  );

  it('leaves out only the three success answers listed with their reason', () => {
    expect(successes.filter((line) => line.seq in UNPARSEABLE).map((line) => line.seq)).toEqual([4, 98, 167]);
  });

  it.each(
    TRANSCRIPT.filter((line) => line.content_type.startsWith('application/problem+json')).map(
      (line) => [line.seq, line] as const,
    ),
  )('parses the problem of seq %i with the error schema', (_seq, line) => {
    const problem = v.parse(TeamPass3ProblemSchema, JSON.parse(line.body));
    expect(problem.status).toBe(line.status);
    expect(problem.detail).not.toBe('');
  });

  it('decodes the entities TeamPass stores in labels and logins, and nothing else (seq 151)', () => {
    const line = TRANSCRIPT.find((entry) => entry.seq === 151)!;
    const [item] = v.parse(TeamPass3ItemListSchema, JSON.parse(line.body));
    expect(item).toMatchObject({
      label: 'Tom & Jerry <script>x</script> "q" \'a\'',
      login: "o'neil",
      description: 'line1\nline2 & <i>it</i>',
      password: '  lead&trail<>"\'  ',
      anyoneCanModify: true,
      tags: ['t1'],
      path: ['DevOnly'],
    });
  });

  it('gives back the < and > its AntiXSS filter wrote into a description as &lt; &gt;, and nothing else', () => {
    const line = TRANSCRIPT.find((entry) => entry.seq === 151)!;
    const [raw] = JSON.parse(line.body) as Record<string, unknown>[];
    const read = (description: string) =>
      v.parse(TeamPass3ItemListSchema, [{ ...raw, description }])[0]!.description;
    expect(read('if a &lt;b then &lt;!-- x --&gt; &lt;input&gt;')).toBe('if a <b then <!-- x --> <input>');
    expect(read('line2 & <i>it</i> &amp;lt; &quot;')).toBe('line2 & <i>it</i> &amp;lt; &quot;');
  });

  it('reads tags, the TOTP flag and the folder path (seq 28, 158)', () => {
    const [sub] = v.parse(TeamPass3ItemListSchema, JSON.parse(TRANSCRIPT.find((l) => l.seq === 28)!.body));
    expect(sub).toMatchObject({ id: 3, folderId: 4, path: ['Shared', 'SharedSub'], tags: [], otp: false });
    const [ci] = v.parse(TeamPass3ItemListSchema, JSON.parse(TRANSCRIPT.find((l) => l.seq === 158)!.body));
    expect(ci).toMatchObject({ otp: true, tags: ['ci'] });
  });

  it('reads the rights of writableFolders through the one rights table (seq 8)', () => {
    const folders = v.parse(
      TeamPass3WritableFolderListSchema,
      JSON.parse(TRANSCRIPT.find((l) => l.seq === 8)!.body),
    );
    expect(folders.map((f) => [f.id, f.accessType, f.readOnly, f.parentId])).toEqual([
      [3, 'W', false, 0],
      [1, 'R', true, 0],
      [4, 'W', false, 1],
    ]);
  });

  it('tolerates numbers as strings, null text and a tree keyed by id', () => {
    const [item] = v.parse(TeamPass3ItemListSchema, [
      { id: '7', label: null, id_tree: '2', anyone_can_modify: 0, tags: null, totp: null, pwd: 12 },
    ]);
    expect(item).toMatchObject({ id: 7, label: '', folderId: 2, password: '12', tags: [], otp: false });
    const tree = v.parse(teampass3Endpoints.listFolders.schema, [
      { id: 1, title: 'A &amp; B', isVisible: 1, complexity: '20', childrens: { 5: { id: 5, title: 'C' } } },
    ]);
    expect(tree).toEqual([
      {
        id: 1,
        title: 'A & B',
        visible: true,
        complexity: 20,
        children: [{ id: 5, title: 'C', visible: true, complexity: 0, children: [] }],
      },
    ]);
  });

  it('refuses what is not an answer of the row', () => {
    expect(v.safeParse(TeamPass3ItemListSchema, { id: 1 }).success).toBe(false);
    expect(v.safeParse(teampass3Endpoints.authorize.schema, { token: '' }).success).toBe(false);
    expect(v.safeParse(TeamPass3ProblemSchema, { type: 'about:blank' }).success).toBe(false);
    expect(v.safeParse(TeamPass3ItemListSchema, [{ id: 'x', label: 'a', id_tree: 1 }]).success).toBe(false);
  });
});

describe('complexityFromTeamPass3', () => {
  it('reads each TeamPass 3 level as the weakest legacy level of the same strength', () => {
    expect([0, 20, 38, 48, 60, 55].map(complexityFromTeamPass3)).toEqual([0, 25, 50, 60, 70, undefined]);
  });
});
