/**
 * The Vaultline vault server: the TeamPass-style credential-vault API over PGlite or PostgreSQL.
 *
 * @module
 */

export { configFromEnv, defaultConfig, EnvSchema, type VaultServerConfig } from './config.ts';
export { VaultServerError } from './errors.ts';
export type { LogDestination } from './logger.ts';
export { type StartVaultServerOptions, startVaultServer, type VaultServer } from './start-vault-server.ts';
export { openVault, type Vault, type VaultAdmin, type VaultOptions } from './vault.ts';
