import { describe, expect, it } from 'vitest';
import { checkNodeStatement } from './node-versions.ts';

const agreeing = {
  pin: '24.21.0',
  nvmrc: '24.21.0',
  development: '>=24',
  packages: {
    'apps/cli': '>=22.12',
    'packages/protocol': '>=22.12',
    'tooling/tsconfig': '>=24',
  },
};

describe('checkNodeStatement', () => {
  it('accepts one pin, a development range of its major, and one runtime floor the pin satisfies', () => {
    expect(checkNodeStatement(agreeing)).toEqual([]);
  });

  it.each([
    [{ nvmrc: '24' }, '.nvmrc says "24", .node-version "24.21.0"'],
    [{ pin: '24', nvmrc: '24' }, '.node-version should hold one exact version, not "24"'],
    [{ development: '>=22.12' }, "the root's >=22.12 is not the pinned major 24"],
    [{ development: '>=25' }, "the pin 24.21.0 does not satisfy the root's >=25"],
    [
      { packages: { ...agreeing.packages, 'apps/slack-bot': '>=24' } },
      'apps and packages declare different floors: >=22.12, >=24',
    ],
    [
      { packages: { ...agreeing.packages, 'tooling/tsconfig': '>=22.12' } },
      'tooling/tsconfig runs while developing: engines.node >=22.12, expected >=24',
    ],
    [
      { packages: { ...agreeing.packages, 'apps/cli': undefined } },
      'apps/cli/package.json has no engines.node',
    ],
    [
      { packages: { 'apps/cli': '>=24.30', 'packages/protocol': '>=24.30' } },
      'apps/cli: the pin 24.21.0 does not satisfy >=24.30',
    ],
  ])('reports a disagreement: %j', (change, problem) => {
    expect(checkNodeStatement({ ...agreeing, ...change })).toContain(problem);
  });
});
