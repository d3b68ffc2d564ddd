/**
 * Which methods of the domain client (`client.ts`) reach each operation of the endpoint table. A
 * row added to the table fails to compile here until it is given its methods, or none (an
 * operation reached by its wire name only); `test/operations.e2e.test.ts` calls every method named
 * and checks that it sends its operation.
 *
 * @module
 */

import type { EndpointName } from '../legacy/endpoints.ts';
import type { VaultFiles, VaultFolders, VaultItems } from './types.ts';

/** A method of the domain client, by its path: `items.get`. */
export type DomainMethod =
  | `items.${keyof VaultItems & string}`
  | `folders.${keyof VaultFolders & string}`
  | `files.${keyof VaultFiles & string}`;

/**
 * The domain methods of every operation. None: `readUserItems` serves the access checker through
 * the wire client, and `generatePassword` is the core's own generator (`generatePassword`).
 */
export const DOMAIN_METHODS = {
  addItem: ['items.create'],
  updateItem: ['items.update'],
  deleteItems: ['items.delete'],
  addFolder: ['folders.create'],
  updateFolder: ['folders.update'],
  deleteFolders: ['folders.delete'],
  addFile: ['files.upload'],
  readFolders: ['items.list'],
  readItems: ['items.get', 'items.getMany'],
  readUserItems: [],
  readUserFolders: ['folders.list', 'items.search'],
  listFiles: ['files.list'],
  downloadFile: ['files.download'],
  findItems: ['items.search'],
  readOtp: ['items.otp'],
  generatePassword: [],
} as const satisfies { readonly [K in EndpointName]: readonly DomainMethod[] };
