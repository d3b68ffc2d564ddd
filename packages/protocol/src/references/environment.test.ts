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

  it('names the variable of a reference that does not parse', () => {
    expect(() => findEnvironmentReferences({ BAD: 'vaultline://42/nofield' })).toThrow(/^BAD: /);
  });
});
