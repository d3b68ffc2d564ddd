import { describe, expect, it } from 'vitest';
import { ALLOW_ROOT_VARIABLE, rootRefusal } from './root-check.ts';

describe('rootRefusal', () => {
  it('refuses uid 0 unless VAULTLINE_ALLOW_ROOT=1, and lets every other user start', () => {
    expect(rootRefusal(0, {})).toMatch(/^Refusing to run as root \(uid 0\).*VAULTLINE_ALLOW_ROOT=1/);
    expect(rootRefusal(0, { [ALLOW_ROOT_VARIABLE]: '0' })).toBeDefined();
    expect(rootRefusal(0, { [ALLOW_ROOT_VARIABLE]: 'yes' })).toBeDefined();
    expect(rootRefusal(0, { [ALLOW_ROOT_VARIABLE]: '1' })).toBeUndefined();
    expect(rootRefusal(0, { [ALLOW_ROOT_VARIABLE]: ' TRUE ' })).toBeUndefined();
    expect(rootRefusal(65532, {})).toBeUndefined();
    expect(rootRefusal(1000, {})).toBeUndefined();
    // Windows has no uids.
    expect(rootRefusal(undefined, {})).toBeUndefined();
  });
});
