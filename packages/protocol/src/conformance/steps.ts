/**
 * The conformance suite's step table: each operation and each optional check, in the order they run.
 *
 * @module
 */

import {
  files,
  fourByteText,
  fullTextSearch,
  keyHeader,
  multiIdReads,
  otherUsers,
  tagsScope,
  urlLookup,
} from './checks.ts';
import {
  addFile,
  addFolder,
  addItem,
  deleteFolders,
  deleteItems,
  downloadFile,
  findItems,
  generatePassword,
  listFiles,
  readFolders,
  readItems,
  readOtp,
  readUserFolders,
  readUserItems,
  updateFolder,
  updateItem,
} from './operations.ts';
import { needs, type Run, type Step } from './run.ts';

/** The optional checks need the main flow's items. */
const mainItems = (run: Run): string | undefined => needs(run, 'addItem', 'updateItem');
const withFiles = (run: Run): boolean => run.files;
const FILES_OFF = 'not run (file operations disabled)';
/** Why a capability the check needs is missing; `undefined` when the server has it. */
const unlessCapable = (run: Run, has: boolean | undefined, missing: string): string | undefined =>
  run.capabilities === undefined ? 'the server could not be identified' : has ? undefined : missing;

/**
 * The suite, in the order it runs: the main flow (BMP text only, so that it runs on any server),
 * the optional checks, the file operations, then the deletes. Each operation of the table has
 * one step; the report lists their results in table order.
 */
export const STEPS: readonly Step[] = [
  { endpoint: 'addFolder', needs: [], run: addFolder },
  { endpoint: 'updateFolder', needs: ['addFolder'], run: updateFolder },
  { endpoint: 'addItem', needs: ['addFolder'], run: addItem },
  { endpoint: 'readItems', needs: ['addItem'], run: readItems },
  { endpoint: 'updateItem', needs: ['readItems'], run: updateItem },
  { endpoint: 'readFolders', needs: ['addItem'], run: readFolders },
  { endpoint: 'findItems', needs: ['addItem'], run: findItems },
  { endpoint: 'readUserItems', needs: [], run: readUserItems },
  { endpoint: 'readUserFolders', needs: [], run: readUserFolders },
  { endpoint: 'generatePassword', needs: [], run: generatePassword },
  {
    endpoint: 'readOtp',
    needs: ['addItem'],
    when: (run) => run.capabilities?.otp === true,
    leftOut: 'not run (the server has no one-time codes: capabilities otp false)',
    run: readOtp,
  },
  { check: 'four-byte-text', unless: mainItems, run: fourByteText },
  { check: 'full-text-search', unless: mainItems, run: fullTextSearch },
  {
    check: 'key-header',
    unless: (run) =>
      mainItems(run) ??
      (run.capabilities?.credentials === 'password'
        ? 'the server signs in with a password: an API key is never sent alone'
        : undefined),
    run: keyHeader,
  },
  { check: 'other-users', unless: () => undefined, run: otherUsers },
  { check: 'multi-id-reads', unless: mainItems, run: multiIdReads },
  {
    check: 'url-lookup',
    unless: (run) =>
      mainItems(run) ?? unlessCapable(run, run.capabilities?.urlLookup, 'the server has no URL lookup'),
    run: urlLookup,
  },
  { endpoint: 'addFile', needs: ['addItem'], when: withFiles, leftOut: FILES_OFF, run: addFile },
  { endpoint: 'listFiles', needs: ['addFile'], when: withFiles, leftOut: FILES_OFF, run: listFiles },
  { endpoint: 'downloadFile', needs: ['listFiles'], when: withFiles, leftOut: FILES_OFF, run: downloadFile },
  {
    check: 'files',
    unless: (run) => (run.files ? needs(run, 'downloadFile') : 'file operations disabled'),
    run: files,
  },
  { endpoint: 'deleteItems', needs: ['addItem'], run: deleteItems },
  {
    check: 'tags-scope',
    unless: (run) =>
      needs(run, 'deleteItems') ?? unlessCapable(run, run.capabilities?.tags, 'the server has no tag list'),
    run: tagsScope,
  },
  { endpoint: 'deleteFolders', needs: ['addFolder'], run: deleteFolders },
];
