/**
 * The operation steps of the conformance suite: one function per operation of the endpoint table,
 * each returning what it checked and throwing what failed.
 *
 * @module
 */

import { isVaultError, toVaultError } from '../errors.ts';
import { CheckFailed, check, found, type Run, Skipped, said } from './run.ts';

export async function addFolder(run: Run): Promise<string> {
  const created = await run.client.addFolder({
    folder: { title: run.folderTitle, complexityLevel: 0, parentId: 0, renewalPeriod: 0 },
  });
  check(
    Number.isSafeInteger(created.id) && created.id > 0,
    `expected a positive new_folder_id, received ${created.id}`,
  );
  run.state.folderId = created.id;
  return `created folder ${created.id}`;
}

export async function updateFolder(run: Run): Promise<string> {
  const updated = await run.client.updateFolder({
    id: run.state.folderId!,
    folder: { title: `${run.folderTitle}-renamed`, complexityLevel: 0, renewalPeriod: 0 },
  });
  return `status ${JSON.stringify(updated.status)}`;
}

export async function addItem(run: Run): Promise<string> {
  const { client, state, token, label } = run;
  const first = await client.addItem({
    item: {
      label,
      password: run.password,
      description: 'line one\nline two & more',
      folderId: state.folderId!,
      login: `user.${token}@example.com`,
      email: `user.${token}@example.com`,
      url: `https://example.com/${token}?a=1&b=2`,
      tags: ['conformance', token],
    },
  });
  state.itemIds.push(first.id);
  const second = await client.addItem({
    item: { label: run.secondLabel, password: 'second', folderId: state.folderId! },
  });
  state.itemIds.push(second.id);
  check(first.id !== second.id, 'two adds returned the same new_item_id');
  try {
    await client.addItem({
      item: { label: label.toUpperCase(), password: 'x', folderId: state.folderId! },
    });
    throw new CheckFailed('adding a label that differs only in case was accepted');
  } catch (error) {
    if (error instanceof CheckFailed) throw error;
    check(
      isVaultError(error, 'duplicate_label'),
      `a similar label gave ${toVaultError(error).code}, expected duplicate_label`,
    );
  }
  return `created items ${first.id} and ${second.id}; a similar label was refused`;
}

export async function readItems(run: Run): Promise<string> {
  const { state, token } = run;
  const items = await run.client.readItems({ ids: state.itemIds });
  const first = items.find((item) => item.id === state.itemIds[0]);
  check(first !== undefined, 'the first item is missing');
  check(
    items.some((item) => item.id === state.itemIds[1]),
    'the second item is missing',
  );
  check(first.label === run.label, `label did not round-trip: ${JSON.stringify(first.label)}`);
  check(first.password === run.password, 'password did not round-trip');
  check(first.login === `user.${token}@example.com`, 'login did not round-trip');
  check(first.url === `https://example.com/${token}?a=1&b=2`, 'url did not round-trip');
  check(first.folderId === state.folderId, `folder_id is ${first.folderId}, expected ${state.folderId}`);
  return `${items.length} items; every value round-tripped`;
}

export async function updateItem(run: Run): Promise<string> {
  const id = run.state.itemIds[1]!;
  await run.client.updateItem({
    id,
    item: {
      label: `${run.secondLabel} updated`,
      password: 'changed ✓',
      folderId: run.state.folderId!,
      login: 'new-login',
    },
  });
  const [item] = await run.client.readItems({ ids: [id] });
  check(item?.label === `${run.secondLabel} updated`, 'the new label was not stored');
  check(item.password === 'changed ✓', 'the new password was not stored');
  check(item.login === 'new-login', 'the new login was not stored');
  return 'all nine values replaced';
}

export async function readFolders(run: Run): Promise<string> {
  const { state } = run;
  const items = (await run.client.readFolders({ ids: [state.folderId!] })).filter(
    (item) => item.folderId === state.folderId,
  );
  check(
    state.itemIds.every((id) => items.some((item) => item.id === id)),
    'the folder does not list both items',
  );
  return `${items.length} items in the folder`;
}

export async function findItems(run: Run): Promise<string> {
  const { client, state, token } = run;
  const found = await client.findItems({ folderIds: [state.folderId!], query: token });
  check(
    found.some((item) => item.id === state.itemIds[0]),
    `searching ${token} did not find the first item`,
  );
  const none = await client.findItems({ folderIds: [state.folderId!], query: `zz${token}zz` });
  check(none.length === 0, 'a search for an absent string found items');
  return `found ${found.length}; an absent string found none`;
}

export async function readUserItems(run: Run): Promise<string> {
  const { login } = run.options;
  const items = await run.client.readUserItems({ login });
  return `${items.length} items for ${login}`;
}

export async function readUserFolders(run: Run): Promise<string> {
  const { login } = run.options;
  const folders = await run.client.readUserFolders({ login });
  check(
    folders.every((folder) => folder.accessType !== 'none'),
    'a folder has an unknown access_type',
  );
  return `${folders.length} folders for ${login}`;
}

export async function generatePassword(run: Run): Promise<string> {
  const { client } = run;
  const first = await client.generatePassword({ rules: { length: 20 } });
  const second = await client.generatePassword({ rules: { length: 20 } });
  check(first.password.length === 20, `asked 20 characters, received ${first.password.length}`);
  check(first.password !== second.password, 'two passwords generated one after the other are the same');
  return 'two different passwords of the length asked';
}

/**
 * read/otp on the item the suite added, which has no TOTP secret (the legacy API cannot give it
 * one): the server answers that there is no code, and sends none.
 */
export async function readOtp(run: Run): Promise<string> {
  try {
    const code = await run.client.readOtp({ id: run.state.itemIds[0]! });
    check(false, `answered a code for an item without a TOTP secret (${code.digits} digits)`);
  } catch (error) {
    if (isVaultError(error, 'not_found')) return 'no code for an item without a TOTP secret (not_found)';
    throw error;
  }
  return '';
}

export async function addFile(run: Run): Promise<string> {
  try {
    const added = await run.client.addFile({
      itemId: run.state.itemIds[0]!,
      file: run.payload,
      fileName: `conformance ü ${run.token}.txt`,
      contentType: 'text/plain',
    });
    if (added.id !== undefined) run.state.fileId = added.id;
    return `status ${JSON.stringify(added.status)}`;
  } catch (error) {
    if (isVaultError(error, 'not_found') && /^no results$/i.test(error.serverMessage ?? '')) {
      found(run, 'files', 'absent', 'add/file answers "No results": the server has no file endpoints');
      throw new Skipped('skipped: the server has no file endpoints');
    }
    if (isVaultError(error, 'unsupported')) {
      found(run, 'files', 'absent', 'the server has no attachments at all (capabilities: files false)');
      throw new Skipped('skipped: the server has no attachments');
    }
    found(run, 'files', 'failed', `add/file answered ${said(run, error)}`);
    throw error;
  }
}

export async function listFiles(run: Run): Promise<string> {
  const { payload } = run;
  const listed = await run.client.listFiles({ itemId: run.state.itemIds[0]! });
  const file = listed.find((entry) => entry.name.includes(run.token));
  check(file !== undefined, 'the uploaded file is not listed');
  check(file.size === payload.byteLength, `size is ${file.size}, expected ${payload.byteLength}`);
  run.state.fileId = file.id;
  return `${listed.length} file(s); name and size match`;
}

export async function downloadFile(run: Run): Promise<string> {
  const { payload } = run;
  const file = await run.client.downloadFile({ id: run.state.fileId! });
  check(
    file.bytes.byteLength === payload.byteLength && file.bytes.every((byte, i) => byte === payload[i]),
    'the bytes differ',
  );
  return `${file.bytes.byteLength} bytes identical (${file.contentType})`;
}

export async function deleteItems(run: Run): Promise<string> {
  const { client, state } = run;
  await client.deleteItems({ ids: state.itemIds });
  const left = await client.readItems({ ids: state.itemIds });
  check(left.length === 0, 'deleted items can still be read');
  state.itemIds = [];
  return 'deleted; reads no longer return them';
}

export async function deleteFolders(run: Run): Promise<string> {
  const { client, state } = run;
  await client.deleteFolders({ ids: [state.folderId!] });
  const left = await client.readFolders({ ids: [state.folderId!] });
  check(
    left.every((item) => item.folderId !== state.folderId),
    'the deleted folder still lists items',
  );
  delete state.folderId;
  return 'deleted';
}
