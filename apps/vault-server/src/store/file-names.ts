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
 * A safe attachment name: the last path component only, no control characters, no leading dots,
 * at most {@link MAX_FILE_NAME_LENGTH} characters. Names are stored in the database, never used as
 * file system paths; this keeps what clients show and save harmless.
 */
export function safeFileName(raw: string | undefined): string {
  const base = (raw ?? '').split(/[/\\]/).pop() ?? '';
  const cleaned = base
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed.
    .replace(/[\u0000-\u001f\u007f"<>|:*?]/g, '')
    // Bidirectional overrides let a name display as something else (`exe.png` shown as `gnp.exe`).
    .replace(/[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '')
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
