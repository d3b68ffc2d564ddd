import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeItemValues } from '../src/legacy/codec.ts';

const run = promisify(execFile);
const packageDir = fileURLToPath(new URL('..', import.meta.url));

/** A vault that knows add/item and read/items: just what the example calls. */
function exampleVault(apiKey: string): Server {
  const items: Record<string, string>[] = [];
  return createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    res.setHeader('content-type', 'application/json');
    if (url.searchParams.get('apikey') !== apiKey) return res.end(JSON.stringify({ err: 'bad key' }));
    const [, , , verb, object, arg = ''] = url.pathname.split('/');
    if (verb === 'add' && object === 'item') {
      const values = decodeItemValues(arg);
      const id = String(items.length + 1);
      items.push({
        id,
        label: values.label,
        description: values.description,
        login: values.login,
        email: values.email,
        url: values.url,
        pw: values.password,
        folder_id: values.folderId,
        path: 'Team > Staging',
      });
      return res.end(JSON.stringify({ status: 'item added', new_item_id: id }));
    }
    if (verb === 'read' && object === 'items') {
      return res.end(JSON.stringify(items.filter((item) => arg.split(';').includes(item.id!))));
    }
    return res.end(JSON.stringify({ err: 'Method not authorized' }));
  });
}

describe('README', () => {
  let server: Server;
  let baseUrl = '';
  beforeAll(async () => {
    server = exampleVault('readme-key');
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('README example', async () => {
    const readme = await readFile(join(packageDir, 'README.md'), 'utf8');
    const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toContain('createVaultClient');
    const dir = await mkdtemp(join(tmpdir(), 'vaultline-readme-'));
    try {
      const file = join(dir, 'example.ts');
      const entry = pathToFileURL(join(packageDir, 'dist/index.js')).href;
      await writeFile(file, example!.replace("'@vaultline/protocol'", JSON.stringify(entry)));
      const { stdout } = await run(process.execPath, [file], {
        env: { ...process.env, VAULT_URL: baseUrl, VAULT_API_KEY: 'readme-key' },
      });
      expect(stdout.split('\n')).toEqual(['Staging database app Team > Staging', 'no such item', '']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
