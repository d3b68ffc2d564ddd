import { replaceUnsafeCharacters } from '@vaultline/protocol';
import { MAX_FILE_NAME_LENGTH } from '../constants.ts';

const MEDIA_TYPES: Readonly<Record<string, string>> = {
  txt: 'text/plain',
  pem: 'application/x-pem-file',
  key: 'application/octet-stream',
  json: 'application/json',
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  zip: 'application/zip',
  csv: 'text/csv',
  xml: 'application/xml',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  env: 'text/plain',
};

/**
 * A safe attachment name: the last path component only, without the characters of the core's one
 * rule for text from outside (controls, line breaks, format characters such as bidirectional
 * overrides, which let `exe.png` display as `gnp.exe`, zero-width characters, the soft hyphen, tag
 * characters, and invisible fillers: see `replaceUnsafeCharacters`), nor `"<>|:*?`, no leading
 * dots, at most {@link MAX_FILE_NAME_LENGTH} characters. Names are stored in the database, never
 * used as file system paths; this keeps what clients show and save harmless.
 */
export function safeFileName(raw: string | undefined): string {
  const base = (raw ?? '').split(/[/\\]/).pop() ?? '';
  const cleaned = replaceUnsafeCharacters(base, () => '')
    .replace(/["<>|:*?]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^\.+/, '');
  const cut = [...cleaned].slice(0, MAX_FILE_NAME_LENGTH).join('');
  return cut === '' ? 'file' : cut;
}

/** The extension of a safe name: lower case letters and digits, at most 10. */
export function extensionOf(name: string): string {
  const match = /\.([A-Za-z0-9]{1,10})$/.exec(name);
  return match ? match[1]!.toLowerCase() : '';
}

/** The media type: the part's own when it is well-formed, else guessed from the extension. */
export function mediaTypeOf(declared: string | undefined, extension: string): string {
  const type = (declared ?? '').trim().toLowerCase();
  if (
    /^[a-z0-9][a-z0-9!#$&^_.+-]{0,63}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,63}$/.test(type) &&
    type !== 'application/octet-stream'
  ) {
    return type;
  }
  return MEDIA_TYPES[extension] ?? 'application/octet-stream';
}
