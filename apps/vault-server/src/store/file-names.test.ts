import { describe, expect, it } from 'vitest';
import { extensionOf, mediaTypeOf, safeFileName } from './file-names.ts';

describe('safeFileName', () => {
  it.each([
    ['report.pdf', 'report.pdf'],
    ['../../etc/passwd', 'passwd'],
    ['C:\\Users\\x\\id_rsa', 'id_rsa'],
    ['.htaccess', 'htaccess'],
    ['...', 'file'],
    ['', 'file'],
    [undefined, 'file'],
    ['a\u0000b\nc.txt', 'abc.txt'],
    ['\u202egnp.exe', 'gnp.exe'],
    ['in\u00advis\u2060ible\u{e0041}\u3164.txt', 'invisible.txt'],
    ['na"me<>|:*?.txt', 'name.txt'],
    ['  many   spaces .txt ', 'many spaces .txt'],
    ['😀 emoji ✓.txt', '😀 emoji ✓.txt'],
  ])('keeps %j as %j', (raw, expected) => {
    expect(safeFileName(raw)).toBe(expected);
  });

  it('cuts long names to 200 characters without splitting an emoji', () => {
    const name = safeFileName('😀'.repeat(300));
    expect([...name]).toHaveLength(200);
    expect(name.endsWith('😀')).toBe(true);
  });
});

describe('extensionOf and mediaTypeOf', () => {
  it.each([
    ['key.PEM', 'pem', undefined, 'application/x-pem-file'],
    ['notes.txt', 'txt', 'text/plain', 'text/plain'],
    ['blob', '', undefined, 'application/octet-stream'],
    ['x.custom', 'custom', 'application/x-custom', 'application/x-custom'],
    ['x.png', 'png', 'application/octet-stream', 'image/png'],
    ['x.bin', 'bin', 'text/html; charset=utf-8<script>', 'application/octet-stream'],
  ])('%s → extension %j, type %j', (name, extension, declared, type) => {
    expect(extensionOf(name)).toBe(extension);
    expect(mediaTypeOf(declared, extension)).toBe(type);
  });
});
