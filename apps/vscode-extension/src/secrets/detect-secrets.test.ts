import { describe, expect, it } from 'vitest';
import { detectSecrets, nameWords } from './detect-secrets.ts';

/** A GitHub-format token made at run time, so the repository holds none. */
const token = ['gh', 'p_', 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'].join('');

describe('detectSecrets', () => {
  it('finds a token format and a password assignment, with their exact ranges', () => {
    const text = `auth: "${token}"\nconst dbPassword = "Vl-k3Jq9Zx2Lm#Pw7!";\n`;
    const found = detectSecrets(text, { languageId: 'typescript' });
    expect(found.map((f) => [f.ruleId, text.slice(f.start, f.end)])).toEqual([
      ['github-token', token],
      ['password-assignment', 'Vl-k3Jq9Zx2Lm#Pw7!'],
    ]);
  });

  it('reads a .env value as dotenv does: up to an unquoted "#"', () => {
    const text = 'DB_PASSWORD=Hunter7!Quokka#Blue\n';
    const [finding] = detectSecrets(text, { languageId: 'dotenv' });
    expect(finding?.secret).toBe('Hunter7!Quokka');
    expect(finding?.name).toBe('DB_PASSWORD');
  });

  it.each([
    'password = "changeme"',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell-style placeholder, as written in files
    'DB_PASSWORD=${DB_PASSWORD}',
    'password: <your-password>',
    'PASSWORD_MIN_LENGTH=12345678',
    'token_type = "bearer_token_value"',
    'const password = process.env.DB_PASSWORD;',
  ])('finds nothing in %j', (text) => {
    expect(detectSecrets(text, { languageId: 'plaintext' })).toEqual([]);
  });
});

describe('nameWords', () => {
  it('splits names of every case style into words', () => {
    expect(nameWords('DB_PASSWORD')).toEqual(['db', 'password']);
    expect(nameWords('stripeSecretKey')).toEqual(['stripe', 'secret', 'key']);
    expect(nameWords('api-key')).toEqual(['api', 'key']);
  });
});
