import { describe, expect, it } from 'vitest';
import { fillEnvironment, findEnvironmentReferences } from './environment.ts';

describe('references in an environment', () => {
  it('finds them by variable and puts the values in, around other text', () => {
    const environment = {
      PLAIN: 'no reference',
      DB_URL: 'postgres://app:vaultline://42/password@db:5432/app',
      TWICE: 'vaultline://42/password vaultline://Eng/api%20token/login',
    };
    const found = findEnvironmentReferences(environment);
    expect([...found.variables.keys()]).toEqual(['DB_URL', 'TWICE']);
    expect(found.references).toHaveLength(3);
    expect(found.variablesOf('vaultline://42/password')).toEqual(['DB_URL', 'TWICE']);
    expect(found.variablesOf('vaultline://7/password')).toEqual([]);
    const values: Record<string, string> = {
      'vaultline://42/password': 's3cr%t',
      'vaultline://Eng/api%20token/login': 'bot',
    };
    expect(fillEnvironment(environment, found, (text) => values[text])).toEqual([
      { name: 'DB_URL', value: 'postgres://app:s3cr%t@db:5432/app', secrets: ['s3cr%t'] },
      { name: 'TWICE', value: 's3cr%t bot', secrets: ['s3cr%t', 'bot'] },
    ]);
    expect(() => fillEnvironment(environment, found, () => undefined)).toThrow(/DB_URL: vaultline:\/\/42/);
  });

  it('finds every reference of a value, one right after another', () => {
    const environment = { URLREF: 'postgres://vaultline://13/login:vaultline://13/password@db/x' };
    const found = findEnvironmentReferences(environment);
    expect(found.variables.get('URLREF')?.map((match) => match.text)).toEqual([
      'vaultline://13/login',
      'vaultline://13/password',
    ]);
    const values: Record<string, string> = { 'vaultline://13/login': 'app', 'vaultline://13/password': 'pw' };
    expect(fillEnvironment(environment, found, (text) => values[text])).toEqual([
      { name: 'URLREF', value: 'postgres://app:pw@db/x', secrets: ['app', 'pw'] },
    ]);
  });

  it('refuses a value where vaultline:// is left that is no reference, rather than pass it on', () => {
    expect(() => findEnvironmentReferences({ HALF: 'vaultline://42/password and vaultline://' })).toThrow(
      /^HALF: /,
    );
  });

  it('names the variable of a reference that does not parse', () => {
    expect(() => findEnvironmentReferences({ BAD: 'vaultline://42/nofield' })).toThrow(/^BAD: /);
  });
});
