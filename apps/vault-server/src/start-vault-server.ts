import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { type AuditStream, createAuditStream } from '@vaultline/audit-stream';
import type { Logger } from 'pino';
import { serveAdminChannel } from './admin-channel.ts';
import { defaultConfig, type VaultServerConfig } from './config.ts';
import { SHUTDOWN_GRACE_MS, UPSTREAM_PACE_TABLE } from './constants.ts';
import { createApp } from './http/create-app.ts';
import { createLimiters, type Limiters } from './http/limits.ts';
import { createClientErrorHandler, createNodeListener } from './http/node-listener.ts';
import { checkPlainHttp, readTlsFiles } from './http/tls.ts';
import { createTransferGate } from './http/transfer-gate.ts';
import { createLogger, type LogDestination, loggableError } from './logger.ts';
import { createAuditWriter } from './store/audit-writer.ts';
import { createUpstreamCache } from './store/upstream-cache.ts';
import { upstreamFeatures } from './store/upstream-features.ts';
import { upstreamPace } from './store/upstream-guard.ts';
import { createUpstreamSessions } from './store/upstream-sessions.ts';
import { createUpstreamStore } from './store/upstream-store.ts';
import { createLocalStore, type VaultStore } from './store/vault-store.ts';
import { LOCAL_PGLITE_SETTINGS, openVault, UPSTREAM_PGLITE_SETTINGS, type Vault } from './vault.ts';

/** Options of {@link startVaultServer}: any configuration value, plus where logs go. */
export type StartVaultServerOptions = {
  [K in keyof VaultServerConfig]?: VaultServerConfig[K] | undefined;
} & {
  /** Where JSON log lines go; stdout by default. */
  log?: LogDestination;
  /** Whether a missing master key file is created. Default true. */
  createMasterKey?: boolean;
};

/** A running server. */
export interface VaultServer {
  /** The base URL, e.g. `http://127.0.0.1:7700`. */
  readonly url: string;
  readonly port: number;
  readonly vault: Vault;
  readonly logger: Logger;
  /** Reads the TLS certificate and key files again (what SIGHUP does); nothing without TLS. */
  reloadTls(): Promise<void>;
  /** Stops accepting, finishes requests in flight (up to 10 s), closes the store. */
  close(): Promise<void>;
}

/**
 * Opens the vault and serves the API.
 *
 * @param options The configuration; defaults for anything left out (in-memory store, port 7700).
 * @returns The running server.
 */
export async function startVaultServer(options: StartVaultServerOptions = {}): Promise<VaultServer> {
  const { log, createMasterKey, ...overrides } = options;
  const config = defaultConfig(
    Object.fromEntries(
      Object.entries(overrides).filter(([, value]) => value !== undefined),
    ) as Partial<VaultServerConfig>,
  );
  const logger = createLogger(config.logLevel, log);
  const tlsFiles =
    config.tlsCert !== undefined && config.tlsKey !== undefined
      ? { certFile: config.tlsCert, keyFile: config.tlsKey }
      : undefined;
  checkPlainHttp(config.host, tlsFiles !== undefined, config.allowPlainHttp);
  const tls = tlsFiles ? await readTlsFiles(tlsFiles) : undefined;
  const vault = await openVault({
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    masterKey: config.masterKey,
    cacheTtlMs: config.cacheTtlMs,
    createMasterKey: createMasterKey ?? true,
    log: logger,
    pgliteSettings: config.upstreamUrl === undefined ? LOCAL_PGLITE_SETTINGS : UPSTREAM_PGLITE_SETTINGS,
  });
  if (vault.attachments.upgraded > 0) {
    logger.info({ count: vault.attachments.upgraded }, 'attachments rewritten in the chunked format');
  }
  if (vault.attachments.failed.length > 0) {
    logger.error(
      { fileIds: vault.attachments.failed },
      'attachments of the old format failed their integrity check; left as they were',
    );
  }
  let stream: AuditStream | undefined;
  if (config.auditSinks.length > 0) {
    try {
      stream = createAuditStream({
        sinks: config.auditSinks,
        appName: 'vaultline-server',
        logger,
        token: config.auditSinkToken,
        ca: config.auditSinkCa === undefined ? undefined : await readFile(config.auditSinkCa, 'utf8'),
        queueSize: config.auditQueueSize,
      });
    } catch (error) {
      await vault.close();
      throw error;
    }
  }
  const audit = createAuditWriter(vault.db, logger, stream);
  let limiters: Limiters;
  try {
    limiters = createLimiters(vault.db, {
      ...config,
      onError: (error) => logger.warn({ err: loggableError(error) }, 'shared rate limit not reachable'),
    });
  } catch (error) {
    await vault.close();
    throw error;
  }
  // Upstream mode: the items are the upstream TeamPass's; keys, accounts, audit and limits stay here.
  // Its one upstream is asked once, keylessly, what it can (one-time codes on TeamPass 3).
  const features =
    config.upstreamUrl === undefined
      ? []
      : await upstreamFeatures(config.upstreamUrl, vault.db, vault.ctx.box, logger);
  const upstreamCache = createUpstreamCache({
    ttlMs: config.upstreamCacheTtlMs,
    staleIfErrorMs: config.upstreamStaleIfErrorMs,
  });
  const sessions =
    config.upstreamUrl === undefined
      ? undefined
      : createUpstreamSessions({
          url: config.upstreamUrl,
          db: vault.db,
          box: vault.ctx.box,
          logger,
          pace: upstreamPace(vault.db, UPSTREAM_PACE_TABLE, config.upstreamCallsPerMinute, (error) =>
            logger.warn({ err: loggableError(error) }, 'upstream pace: the database could not be reached'),
          ),
          // A refusal drops what was kept of the account: never served again, stale or not.
          onRefused: (accountId) => upstreamCache.dropAccount(accountId),
        });
  // An account re-registered while the server runs: its next call signs in with what was registered.
  if (sessions) vault.onUpstreamAccountChange((accountId) => sessions.forget(accountId));
  const store: VaultStore =
    config.upstreamUrl === undefined || sessions === undefined
      ? createLocalStore(vault.ctx)
      : createUpstreamStore({
          db: vault.db,
          features,
          cache: upstreamCache,
          sessions,
        });
  const { app, api, cors } = createApp({
    ctx: vault.ctx,
    store,
    audit,
    logger,
    limiters,
    maxUrlLength: config.maxUrlLength,
    maxFileBytes: config.maxFileBytes,
    transfers: createTransferGate({
      max: config.maxTransfers,
      perKey: config.maxTransfersPerKey,
      idleMs: config.transferIdleMs,
      minRate: config.transferMinRate,
    }),
    trustedProxies: config.trustedProxies,
    queryKeys: config.queryKeys,
    corsOrigins: config.corsOrigins,
    upstreamDeadlineMs: config.upstreamUrl === undefined ? undefined : config.upstreamDeadlineMs,
  });
  const serverOptions = {
    maxHeaderSize: Math.max(32_768, config.maxUrlLength + 16_384),
    requestTimeout: config.requestTimeoutMs,
    // node:http refuses headers allowed longer than the whole request.
    headersTimeout: Math.min(60_000, config.requestTimeoutMs),
    // How often node:http looks for requests past their time (its default, 30 s, would let one
    // run up to 30 s over).
    connectionsCheckingInterval: Math.min(30_000, Math.max(250, Math.floor(config.requestTimeoutMs / 4))),
  };
  const listener = createNodeListener({ fetch: app.fetch, api, cors, logger });
  const server: Server | HttpsServer = tls
    ? createHttpsServer({ ...serverOptions, cert: tls.cert, key: tls.key }, listener)
    : createServer(serverOptions, listener);
  /** Reads the certificate and key again; a failure keeps the ones in use. */
  const reloadTls = async (): Promise<void> => {
    if (!tlsFiles || !('setSecureContext' in server)) return;
    try {
      const fresh = await readTlsFiles(tlsFiles);
      server.setSecureContext({ cert: fresh.cert, key: fresh.key });
      logger.info('tls certificate reloaded');
    } catch (error) {
      logger.error({ err: loggableError(error) }, 'tls certificate reload failed; keeping the current one');
      throw error;
    }
  };
  const onHangup = () => void reloadTls().catch(() => {});
  if (tlsFiles) process.on('SIGHUP', onHangup);
  // Node answers an over-long request line with a bare 431; answer the API's JSON 414 instead.
  server.on('clientError', createClientErrorHandler(logger));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    process.off('SIGHUP', onHangup);
    await audit.flush();
    await stream?.close(0);
    await vault.close();
    throw error;
  }
  // PGlite is one process's: the admin commands reach this one through its data directory's socket.
  let closeAdminChannel: (() => Promise<void>) | undefined;
  if (config.databaseUrl === undefined && config.dataDir !== undefined) {
    try {
      closeAdminChannel = await serveAdminChannel(config.dataDir, vault.adminAs, logger);
    } catch (error) {
      logger.warn(
        { err: loggableError(error) },
        'admin channel not opened: stop the server to administer it',
      );
    }
  }
  const port = (server.address() as AddressInfo).port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `${tls ? 'https' : 'http'}://${host}:${port}`;
  logger.info(
    {
      port,
      host: config.host,
      store: config.databaseUrl ? 'postgres' : config.dataDir ? 'pglite-dir' : 'pglite-memory',
      tls: tls !== undefined,
      ...(config.upstreamUrl === undefined ? {} : { upstream: config.upstreamUrl }),
    },
    'vault server listening',
  );
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    vault,
    logger,
    reloadTls,
    close() {
      closing ??= (async () => {
        process.off('SIGHUP', onHangup);
        await closeAdminChannel?.();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const timer = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
        await closed;
        clearTimeout(timer);
        await store.close();
        await audit.flush();
        await stream?.close();
        await limiters.close();
        await vault.close();
        logger.info('vault server stopped');
        await new Promise<void>((resolve) => logger.flush(() => resolve()));
      })();
      return closing;
    },
  };
}
