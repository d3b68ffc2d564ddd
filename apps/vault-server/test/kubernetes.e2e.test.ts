/**
 * The External Secrets Operator recipe of docs/kubernetes.md against a real server: the YAML of
 * the page is read, and for each ExternalSecret the request ESO's webhook provider sends is sent
 * (its URL template filled in query-escaped as Go's url.QueryEscape does, its header templates
 * unescaped, GET without a body, ESO's HTTP client headers), then the store's result.jsonPath is
 * applied to the answer with a JSONPath library and the result read as ESO reads it (a list gives
 * its first element; no match is an error).
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createWireClient, type WireClient } from '@vaultline/protocol/wire';
import { JSONPath } from 'jsonpath-plus';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { startTestVault, type TestVault } from '../src/testing.ts';

const page = readFileSync(join(import.meta.dirname, '../../../docs/kubernetes.md'), 'utf8');

interface WebhookSpec {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  result: { jsonPath?: string };
  secrets?: { name: string; secretRef: { name: string; namespace?: string } }[];
}

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  spec: Record<string, unknown>;
}

interface RemoteRef {
  key: string;
  property?: string;
  version?: string;
}

interface ExternalSecretSpec {
  refreshInterval: string;
  secretStoreRef: { kind: string; name: string };
  data: { secretKey: string; remoteRef: RemoteRef }[];
}

/** Every manifest in the page's YAML blocks, parsed by a YAML library. */
const manifests: Manifest[] = [...page.matchAll(/```yaml\n([\s\S]*?)```/g)].flatMap((block) =>
  parseAllDocuments(block[1]!).map((doc) => {
    expect(doc.errors).toEqual([]);
    return doc.toJS() as Manifest;
  }),
);

function store(kind: string, name: string): WebhookSpec {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
  expect(found, `${kind} ${name}`).toBeDefined();
  return (found!.spec.provider as { webhook: WebhookSpec }).webhook;
}

function externalSecret(name: string): ExternalSecretSpec {
  const found = manifests.find((m) => m.kind === 'ExternalSecret' && m.metadata.name === name);
  expect(found, name).toBeDefined();
  return found!.spec as unknown as ExternalSecretSpec;
}

/** Go's url.QueryEscape: unreserved characters stay, a space is `+`, every other byte `%XX`. */
function queryEscape(text: string): string {
  return [...new TextEncoder().encode(text)]
    .map((byte) => {
      const char = String.fromCharCode(byte);
      if (/[A-Za-z0-9\-_.~]/.test(char)) return char;
      if (char === ' ') return '+';
      return `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    })
    .join('');
}

type TemplateData = Record<string, Record<string, string>>;

/**
 * Go's `json.Marshal` of a string, what Sprig's `toJson` gives: JSON.stringify's escapes, and
 * `<`, `>`, `&`, U+2028 and U+2029 as `\u` escapes.
 */
function goJson(text: string): string {
  return JSON.stringify(text).replace(
    /[<>&\u2028\u2029]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * The `{{ .a.b }}` fields of ESO's Go templates, and `{{ .a.b | toJson }}` (a Sprig function of
 * ESO's templates): the recipe uses no other construct.
 */
function render(template: string, data: TemplateData): string {
  const field = /\{\{\s*\.(\w+)\.(\w+)\s*(\|\s*toJson\s*)?\}\}/g;
  const rest = template.replace(field, (_, group: string, name: string, toJson?: string) => {
    const value = data[group]?.[name];
    expect(value, `${group}.${name}`).toBeDefined();
    return toJson ? goJson(value!) : value!;
  });
  expect(rest).not.toContain('{{');
  return rest;
}

/** What ESO's extractSecretData makes of a JSONPath result. */
function extract(value: unknown): string {
  if (Array.isArray(value)) {
    if (value.length === 0) throw new Error("filter worked but didn't get any result");
    return extract(value[0]);
  }
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return value.toFixed(0);
  if (typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** The store's secrets, as the Kubernetes Secrets would hold them. */
type StoreSecrets = Record<string, Record<string, string>>;

/** Sends what ESO's webhook provider sends for one remoteRef and reads the answer as it does. */
async function esoGetSecret(
  spec: WebhookSpec,
  ref: RemoteRef,
  secrets: StoreSecrets,
  baseUrl: string,
): Promise<string> {
  const raw: TemplateData = {
    remoteRef: { key: ref.key, version: ref.version ?? '', property: ref.property ?? '', namespace: 'app' },
  };
  const escaped: TemplateData = {
    remoteRef: {
      key: queryEscape(ref.key),
      version: queryEscape(ref.version ?? ''),
      property: queryEscape(ref.property ?? ''),
      namespace: 'app',
    },
  };
  for (const secret of spec.secrets ?? []) {
    raw[secret.name] = secrets[secret.name]!;
    escaped[secret.name] = secrets[secret.name]!;
  }
  const url = render(spec.url, escaped).replace('https://vault.example.com', baseUrl);
  const headers: Record<string, string> = { 'user-agent': 'Go-http-client/1.1', 'accept-encoding': 'gzip' };
  for (const [name, value] of Object.entries(spec.headers ?? {})) headers[name] = render(value, raw);
  expect(spec.body ?? '').toBe('');
  const response = await fetch(url, { method: spec.method ?? 'GET', headers });
  const text = await response.text();
  if (response.status === 404) throw new Error('NoSecretError');
  if (response.status < 200 || response.status >= 300)
    throw new Error(`endpoint gave error ${response.status}`);
  const jsonPath = render(spec.result.jsonPath ?? '', raw);
  if (jsonPath === '') return text;
  const result = JSONPath({ path: jsonPath, json: JSON.parse(text) as object, wrap: false });
  if (result === undefined) throw new Error(`failed to get response path ${jsonPath}`);
  return extract(result);
}

describe('External Secrets Operator against the Vaultline server (docs/kubernetes.md)', () => {
  let vault: TestVault;
  let admin: WireClient;
  let esoKey: string;
  const ids: Record<string, number> = {};
  const passwords = {
    db: 'Pg-Prød#2024!é-🦄',
    wifi: 'Wifi-Pass-Ünïcode-42 ☕',
    share: 'Share-Pw-Bäck\\slash-7',
  };
  /**
   * A label with what a JSONPath string literal must escape: backslashes and quotes. (`toJson`
   * also writes `<`, `>` and `&` as `\u` escapes, which Go's JSONPath reads and jsonpath-plus,
   * the stand-in here, does not.)
   */
  const shareLabel = 'C:\\Shares\\ops "main" \\';

  beforeAll(async () => {
    // Keys in URLs refused: what ESO sends works there.
    vault = await startTestVault({ queryKeys: 'refuse' });
    admin = createWireClient({ baseUrl: vault.url, auth: vault.adminKey });
    const folder = async (title: string, parentId = 0) =>
      (await admin.addFolder({ folder: { title, complexityLevel: 0, parentId } })).id;
    ids.engineering = await folder('Engineering');
    ids.databases = await folder('Bases de données ☃', ids.engineering);
    ids.shared = await folder('Shared');
    ids.ops = await folder('Ops');
    ids.db = (
      await admin.addItem({
        item: { label: 'prod db', password: passwords.db, folderId: ids.databases, login: 'postgrès' },
      })
    ).id;
    ids.wifi = (
      await admin.addItem({
        item: {
          label: 'Café ☕ 100% / wifi',
          password: passwords.wifi,
          folderId: ids.shared,
          login: 'guest',
        },
      })
    ).id;
    ids.share = (
      await admin.addItem({ item: { label: shareLabel, password: passwords.share, folderId: ids.shared } })
    ).id;
    ids.ops_item = (
      await admin.addItem({ item: { label: 'ops only', password: 'Ops-Only-Pw-1', folderId: ids.ops } })
    ).id;
    await vault.admin.createUser({ login: 'k8s-eso' });
    await vault.admin.createRole({ name: 'cluster-readers' });
    await vault.admin.assignRole('k8s-eso', 'cluster-readers');
    await vault.admin.grant('cluster-readers', ids.databases, 'R');
    await vault.admin.grant('cluster-readers', ids.shared, 'R');
    esoKey = await vault.admin.createKey({ label: 'k8s-eso', login: 'k8s-eso' });
  });
  afterAll(async () => {
    await vault?.close();
  });

  const secrets = (): StoreSecrets => ({ auth: { apikey: esoKey } });

  it('documents a ClusterSecretStore, a SecretStore and ExternalSecrets with a refresh interval', () => {
    expect(manifests.map((m) => `${m.apiVersion} ${m.kind}`)).toEqual(
      expect.arrayContaining([
        'external-secrets.io/v1 ClusterSecretStore',
        'external-secrets.io/v1 SecretStore',
        'external-secrets.io/v1 ExternalSecret',
      ]),
    );
    const cluster = store('ClusterSecretStore', 'vaultline');
    expect(cluster.headers?.Authorization).toBe('Bearer {{ .auth.apikey }}');
    expect(cluster.url).not.toContain('apikey');
    // A ClusterSecretStore names the namespace of each secret it reads.
    expect(cluster.secrets?.every((secret) => secret.secretRef.namespace !== undefined)).toBe(true);
    for (const name of ['prod-db', 'wifi'])
      expect(externalSecret(name).refreshInterval).toMatch(/^\d+[smh]$/);
  });

  it('reads fields by item id in one call each, unicode values as they are', async () => {
    const spec = externalSecret('prod-db');
    const cluster = store(spec.secretStoreRef.kind, spec.secretStoreRef.name);
    const values: Record<string, string> = {};
    for (const { secretKey, remoteRef } of spec.data) {
      // The page's example id stands for the item's real one.
      expect(remoteRef.key).toBe('42');
      values[secretKey] = await esoGetSecret(
        cluster,
        { ...remoteRef, key: String(ids.db) },
        secrets(),
        vault.url,
      );
    }
    expect(values).toEqual({ password: passwords.db, username: 'postgrès' });
    // The folder path comes with the record, in the same call.
    expect(
      await esoGetSecret(
        { ...cluster, result: { jsonPath: '$[0].path' } },
        { key: String(ids.db) },
        secrets(),
        vault.url,
      ),
    ).toBe('Engineering > Bases de données ☃');
  });

  it('reads a field by folder and a unicode label in one call', async () => {
    const spec = externalSecret('wifi');
    const byLabel = store(spec.secretStoreRef.kind, spec.secretStoreRef.name);
    const [entry] = spec.data;
    expect(entry!.remoteRef).toEqual({ key: '12', property: 'Café ☕ 100% / wifi' });
    expect(
      await esoGetSecret(byLabel, { ...entry!.remoteRef, key: String(ids.shared) }, secrets(), vault.url),
    ).toBe(passwords.wifi);
    // Backslashes and quotes in the label reach the JSONPath as text, not as escapes.
    expect(
      await esoGetSecret(byLabel, { key: String(ids.shared), property: shareLabel }, secrets(), vault.url),
    ).toBe(passwords.share);
    // A label that is not there, or a folder the key's user may not read: no match, an error.
    await expect(
      esoGetSecret(byLabel, { key: String(ids.shared), property: 'no such item' }, secrets(), vault.url),
    ).rejects.toThrow(/didn't get any result|failed to get response path/);
    await expect(
      esoGetSecret(byLabel, { key: String(ids.ops), property: 'ops only' }, secrets(), vault.url),
    ).rejects.toThrow(/didn't get any result|failed to get response path/);
  });

  it('picks up a rotated password on the next refresh, and refuses what the key may not read', async () => {
    const spec = externalSecret('prod-db');
    const cluster = store(spec.secretStoreRef.kind, spec.secretStoreRef.name);
    const ref = { key: String(ids.db), property: 'pw' };
    const rotated = 'Rotated-Pw-ß-∑-2';
    await admin.updateItemFields(ids.db!, { password: rotated });
    expect(await esoGetSecret(cluster, ref, secrets(), vault.url)).toBe(rotated);
    await admin.updateItemFields(ids.db!, { password: passwords.db });
    await expect(
      esoGetSecret(cluster, { key: String(ids.ops_item), property: 'pw' }, secrets(), vault.url),
    ).rejects.toThrow(/failed to get response path|didn't get any result/);
    await expect(
      esoGetSecret(cluster, { key: '999999', property: 'pw' }, secrets(), vault.url),
    ).rejects.toThrow();
    await expect(
      esoGetSecret(cluster, ref, { auth: { apikey: 'not-a-key-0123456789abcdef' } }, vault.url),
    ).rejects.toThrow('endpoint gave error 401');
  });

  it('escapes keys as Go does, so only ids belong in the URL', () => {
    expect(queryEscape('Engineering/prod db')).toBe('Engineering%2Fprod+db');
    expect(queryEscape('42')).toBe('42');
  });
});
