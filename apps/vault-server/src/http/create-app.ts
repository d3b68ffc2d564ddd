import type { HttpBindings } from '@hono/node-server';
import { ENDPOINT_NAMES, type EndpointName, endpoints, VaultError } from '@vaultline/protocol';
import { type Context, Hono } from 'hono';
import type { Logger } from 'pino';
import { API_PREFIXES, AUDIT_AUTH_FAILED, FAILED_KEY_WINDOW_MS } from '../constants.ts';
import { invalid, VaultServerError } from '../errors.ts';
import type { Principal } from '../store/access.ts';
import { authenticateKey, hashKey, type KeyIdentity } from '../store/api-keys.ts';
import type { AuditWriter } from '../store/audit-writer.ts';
import type { StoreContext } from '../store/store-context.ts';
import { type WriteAuditScope, writeAuditScope } from '../store/write-audit.ts';
import { clientAddress } from './client-address.ts';
import { INTERNAL_ERROR, loggableError, toApiError } from './error-mapping.ts';
import { handlers } from './handlers.ts';
import { parseCidrList } from './ip-rules.ts';
import { RateLimiter } from './rate-limiter.ts';

/** What the HTTP layer needs. */
export interface AppOptions {
  ctx: StoreContext;
  audit: AuditWriter;
  logger: Logger;
  maxUrlLength: number;
  maxFileBytes: number;
  rateLimitPerMinute: number;
  failedKeyLimit: number;
  trustedProxies: readonly string[];
}

type Env = {
  Bindings: Partial<HttpBindings>;
  Variables: { address: string; principal: Principal; operation: string };
};

/** The raw request target, never percent-decoded nor normalised (`..` stays as sent). */
function rawTarget(c: { env: Partial<HttpBindings> | undefined; req: { url: string } }): string {
  const incoming = c.env?.incoming?.url;
  if (incoming !== undefined) return incoming;
  const url = new URL(c.req.url);
  return url.pathname + url.search;
}

/** Splits the raw path after the API prefix into the template's segments, undecoded. */
function rawSegments(rawPath: string, template: string): Record<string, string> | undefined {
  const prefix = API_PREFIXES.find((candidate) => rawPath.startsWith(`${candidate}/`));
  if (prefix === undefined) return undefined;
  const parts = rawPath.slice(prefix.length).split('/');
  const templateParts = template.split('/');
  if (parts.length !== templateParts.length) return undefined;
  const out: Record<string, string> = {};
  for (const [index, templatePart] of templateParts.entries()) {
    const part = parts[index]!;
    const name = /^\{(\w+)\}$/.exec(templatePart)?.[1];
    if (name !== undefined) out[name] = part;
    else if (part !== templatePart) return undefined;
  }
  return out;
}

// Answers carry passwords: no cache, proxy or browser may keep them.
const API_HEADERS = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' } as const;
// Plain records, shared by every answer: @hono/node-server writes them as they are, where a
// `Headers` object (what `c.header()` builds) is created and converted again on every request.
const JSON_HEADERS = { 'content-type': 'application/json', ...API_HEADERS };
const TEXT_HEADERS = { 'content-type': 'text/plain; charset=UTF-8', ...API_HEADERS };

function respond(body: unknown): Response {
  if (body instanceof Response) return body;
  if (typeof body === 'string') return new Response(body, { headers: TEXT_HEADERS });
  return new Response(JSON.stringify(body), { headers: JSON_HEADERS });
}

/** The API's headers on an error answer (built by Hono, through `c.header()`). */
function apiHeaders(c: Context<Env>): void {
  for (const [name, value] of Object.entries(API_HEADERS)) c.header(name, value);
}

function actorOf(principal: Principal): string {
  return principal.kind === 'admin' ? 'admin' : principal.login;
}

/**
 * Builds the Hono app: `/healthz`, `/readyz`, and every row of the endpoint table under
 * `/api/index.php` and `/api`.
 */
export function createApp(options: AppOptions): Hono<Env> {
  const { ctx, logger } = options;
  const requests = new RateLimiter(options.rateLimitPerMinute, 60_000);
  const failedKeys = new RateLimiter(options.failedKeyLimit, FAILED_KEY_WINDOW_MS);
  const trusted =
    options.trustedProxies.length > 0
      ? parseCidrList(options.trustedProxies, 'the trusted proxies')
      : undefined;
  const { audit } = options;
  const app = new Hono<Env>();

  app.onError((error, c) => {
    apiHeaders(c);
    const mapped = toApiError(error);
    if (mapped) return c.json(mapped.body, mapped.status as 400);
    logger.error({ err: loggableError(error) }, 'request failed');
    return c.json(INTERNAL_ERROR.body, 500);
  });

  app.notFound((c) => {
    apiHeaders(c);
    return c.json(
      { err: 'No such operation: expected /api/index.php/<verb>/<object>/….', code: 'invalid_request' },
      404,
    );
  });

  app.use('*', async (c, next) => {
    const started = performance.now();
    c.set('operation', 'unknown');
    const target = rawTarget(c);
    if (Buffer.byteLength(target) > options.maxUrlLength) {
      c.status(414);
      logger.info({ op: 'unknown', status: 414 }, 'request');
      return c.json(
        {
          err: `The request URL is longer than the limit of ${options.maxUrlLength} bytes.`,
          code: 'too_large',
        },
        414,
      );
    }
    // X-Forwarded-For is read only when a trusted proxy is configured.
    const forwarded = trusted ? c.req.header('x-forwarded-for') : undefined;
    c.set(
      'address',
      clientAddress(c.env?.incoming?.socket?.remoteAddress ?? '127.0.0.1', forwarded, trusted),
    );
    await next();
    const principal = c.get('principal');
    logger.info(
      {
        op: c.get('operation'),
        status: c.res.status,
        ms: Math.round((performance.now() - started) * 100) / 100,
        addr: c.get('address'),
        keyLabel: principal?.keyLabel,
      },
      'request',
    );
    return undefined;
  });

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    try {
      await ctx.db.query('SELECT 1');
      return c.json({ status: 'ready' });
    } catch {
      return c.json({ err: 'The database is not reachable.', code: 'server' }, 503);
    }
  });

  app.use('/api/*', async (c, next) => {
    const address = c.get('address');
    if (!requests.hit(address)) {
      c.header('retry-after', String(requests.retryAfter(address)));
      throw new VaultServerError('rate_limited', 'Too many requests from this address; slow down.');
    }
    if (failedKeys.blocked(address)) {
      c.header('retry-after', String(failedKeys.retryAfter(address)));
      throw new VaultServerError(
        'rate_limited',
        'Too many failed API keys from this address; try again later.',
      );
    }
    const query = rawTarget(c).split('?')[1] ?? '';
    const key = new URLSearchParams(query).get('apikey');
    if (key === null || key === '') {
      throw new VaultServerError('unauthorized', 'Missing API key: pass it as the apikey query parameter.');
    }
    const hash = hashKey(key);
    let identity: KeyIdentity | undefined = ctx.keyCache.get(hash);
    if (!identity) {
      identity = await authenticateKey(ctx.db, key);
      if (identity) ctx.keyCache.set(hash, identity);
    }
    if (!identity) {
      failedKeys.hit(address);
      await audit.recordNow({
        actor: 'unknown',
        keyLabel: '',
        action: AUDIT_AUTH_FAILED,
        target: '',
        address,
        outcome: 'unauthorized',
      });
      throw new VaultServerError('unauthorized', 'Invalid API key.');
    }
    if (!identity.allows(address)) {
      await audit.recordNow({
        actor: actorOf(identity.principal),
        keyLabel: identity.principal.keyLabel,
        action: AUDIT_AUTH_FAILED,
        target: '',
        address,
        outcome: 'address not allowed',
      });
      throw new VaultServerError('forbidden', 'Ip address not allowed for this API key.');
    }
    c.set('principal', identity.principal);
    await next();
  });

  for (const name of ENDPOINT_NAMES) {
    const definition = endpoints[name];
    const routePath = definition.path.replace(/\{(\w+)\}/g, ':$1');
    const audited = definition.access === 'write' || definition.secret;
    const handle = async (c: Context<Env>) => {
      c.set('operation', definition.operation);
      if (c.req.method !== definition.method) {
        throw invalid(`${definition.operation} takes ${definition.method}, received ${c.req.method}.`);
      }
      const principal = c.get('principal');
      const base = {
        actor: actorOf(principal),
        keyLabel: principal.keyLabel,
        action: definition.operation,
        address: c.get('address'),
      };
      try {
        const rawPath = rawTarget(c).split('?')[0]!;
        const segments = rawSegments(rawPath, definition.path);
        if (!segments)
          throw invalid('The path does not match the operation: dot segments and extra slashes are refused.');
        const params: Record<string, unknown> = {};
        for (const [param, segment] of Object.entries(definition.params))
          params[param] = segment.decode(segments[param] ?? '');
        const input = {
          params,
          principal,
          request: () => c.req.raw,
          ctx,
          maxFileBytes: options.maxFileBytes,
        };
        const run = handlers[name as EndpointName];
        if (definition.access === 'write') {
          // The store writes the audit record inside the write's transaction.
          const scope: WriteAuditScope = { base, recorded: false };
          const result = await writeAuditScope.run(scope, () => run(input));
          if (!scope.recorded) await audit.recordNow({ ...base, target: result.target, outcome: 'ok' });
          return respond(result.body);
        }
        const result = await run(input);
        if (audited) audit.record({ ...base, target: result.target, outcome: 'ok' });
        return respond(result.body);
      } catch (error) {
        const failed = { ...base, target: '', outcome: error instanceof VaultError ? error.code : 'server' };
        if (definition.access === 'write') await audit.recordNow(failed);
        else if (audited) audit.record(failed);
        throw error;
      }
    };
    for (const prefix of API_PREFIXES) app.all(prefix + routePath, handle);
  }
  return app;
}
