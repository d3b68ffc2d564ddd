import { describe, expect, it } from 'vitest';
import { claimMatches, parseClaim } from './claim-pattern.ts';

describe('parseClaim', () => {
  it.each([
    ['repository=acme/api', ['repository', 'acme/api']],
    ['ref=refs/heads/*', ['ref', 'refs/heads/*']],
    ['sub=repo:acme/api:*', ['sub', 'repo:acme/api:*']],
    ['namespace_path=a=b', ['namespace_path', 'a=b']],
  ])('reads %s', (text, expected) => {
    expect(parseClaim(text)).toEqual(expected);
  });

  it.each([
    ['repository', /KEY=VALUE/],
    ['=x', /KEY=VALUE/],
    ['ref=', /KEY=VALUE/],
    ['aud=x', /not set with --claim/],
    ['iss=https://a', /not set with --claim/],
    ['sub=*', /unsafe pattern/],
    ['sub=repo:*', /unsafe pattern/],
    ['ref=refs/*/main', /unsafe pattern/],
    ['environment=prod*', /unsafe pattern/],
    ['repository=*-prod', /unsafe pattern/],
    ['repository=acme/*', /unsafe pattern/],
    ['ref=refs//*', /unsafe pattern/],
  ])('refuses %s', (text, message) => {
    expect(() => parseClaim(text)).toThrow(message);
  });
});

describe('claimMatches', () => {
  it.each([
    ['acme/api', 'acme/api', true],
    ['acme/api', 'acme/api2', false],
    ['acme/api', 'ACME/api', false],
    ['refs/heads/*', 'refs/heads/main', true],
    ['refs/heads/*', 'refs/heads/feature/x', true],
    ['refs/heads/*', 'refs/heads/', false],
    ['refs/heads/*', 'refs/tags/v1', false],
    ['1234', 1234, true],
    ['true', true, true],
    ['acme/api', ['acme/api'], false],
    ['acme/api', { repository: 'acme/api' }, false],
    ['acme/api', undefined, false],
  ])('matches %s against %j: %s', (pattern, value, expected) => {
    expect(claimMatches(pattern, value)).toBe(expected);
  });
});
