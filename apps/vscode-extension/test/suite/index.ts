import { assistantTests } from './assistant.test.ts';
import { attachmentTests } from './attachments.test.ts';
import { benchmarks, teampass3Benchmarks } from './bench.ts';
import { errorAndLogTests } from './errors-log.test.ts';
import { readFixture } from './fixture.ts';
import { connect, disconnect, extensionApi } from './helpers.ts';
import { insertCopyTests } from './insert-copy.test.ts';
import { issue31TeamPass3Tests, issue31Tests } from './issue31.test.ts';
import { issue41Tests } from './issue41.test.ts';
import { localHistoryTests } from './local-history.test.ts';
import { malformedInputTests } from './malformed-input.test.ts';
import { newcomerTests } from './newcomer.test.ts';
import { referenceTests } from './references.test.ts';
import { schemeTests } from './schemes.test.ts';
import { searchTests } from './search.test.ts';
import { secretTests } from './secrets.test.ts';
import { teampass3Target, teampassTarget, vaultTarget } from './target.ts';
import { teampassOnlyTests } from './teampass.test.ts';
import { teampass3OnlyTests } from './teampass3.test.ts';
import { terminalTests } from './terminal.test.ts';
import { treeTests } from './tree.test.ts';
import { firstRunTests, trustTests } from './trust.test.ts';
import { vaultKeyWriteTests, writeTests } from './write.test.ts';

// Mocha 12's package entry is ESM; its CommonJS build is what a CJS extension host can require.
const Mocha = require('mocha/lib/mocha.cjs') as typeof import('mocha');

/** The entry VS Code calls in the extension host (`extensionTestsPath`). */
export async function run(): Promise<void> {
  const fixture = readFixture();
  // VAULTLINE_TEST_GREP runs the tests whose full title matches (iterating on a few tests).
  const grep = process.env.VAULTLINE_TEST_GREP;
  const mocha = new Mocha({
    ui: 'bdd',
    color: false,
    timeout: 30_000,
    reporter: 'spec',
    ...(grep ? { grep } : {}),
  });
  mocha.suite.emit('pre-require', globalThis, '', mocha);

  before(async function () {
    this.timeout(60_000);
    await extensionApi();
  });

  if (fixture.mode !== 'bench') firstRunTests();
  describe('with alice and bob connected', () => {
    before(async function () {
      this.timeout(60_000);
      await connect({ name: 'alice', url: fixture.url, login: 'alice', apiKey: fixture.keys.alice });
      await connect({ name: 'bob', url: fixture.url, login: 'bob', apiKey: fixture.keys.bob });
    });

    if (fixture.mode === 'bench') benchmarks(fixture);
    else {
      const target = vaultTarget(fixture);
      treeTests(target);
      insertCopyTests(target);
      searchTests(target);
      writeTests(target);
      vaultKeyWriteTests(fixture);
      attachmentTests(target);
      terminalTests(fixture);
      malformedInputTests(fixture);
      referenceTests(target);
      schemeTests(fixture);
      secretTests(fixture, target);
      localHistoryTests(fixture);
      newcomerTests(fixture);
      issue31Tests(fixture);
      issue41Tests(fixture);
      errorAndLogTests(fixture);
      trustTests(fixture);
      assistantTests(fixture);
    }
  });

  // The same search and attachment tests, through the same extension code, against TeamPass's API.
  if (fixture.mode !== 'bench') {
    describe('with alice and bob connected to the TeamPass replay server', () => {
      const target = teampassTarget(fixture);
      before(async function () {
        this.timeout(60_000);
        for (const name of ['alice', 'bob']) await disconnect(name);
        for (const login of ['alice', 'bob'] as const) await connect(target.connectArgs(login));
      });
      after(async function () {
        this.timeout(60_000);
        for (const name of [target.alice, target.bob]) await disconnect(name);
        // The UI check that follows expects the vault connections.
        await connect({ name: 'alice', url: fixture.url, login: 'alice', apiKey: fixture.keys.alice });
        await connect({ name: 'bob', url: fixture.url, login: 'bob', apiKey: fixture.keys.bob });
      });
      searchTests(target);
      attachmentTests(target);
      teampassOnlyTests(fixture);
    });
  }

  // The same tests again, through the same extension code, against TeamPass 3's REST API (each
  // user signs in with a password and their API key), then what only TeamPass 3 has.
  describe('with alice and bob connected to the TeamPass 3 fake', () => {
    const target = teampass3Target(fixture);
    before(async function () {
      this.timeout(60_000);
      for (const name of ['alice', 'bob']) await disconnect(name);
      // The benchmark connects alice itself, to count its sign-ins from the start.
      if (fixture.mode === 'bench') return;
      for (const login of ['alice', 'bob'] as const)
        if ((await connect(target.connectArgs(login))) !== true) throw new Error(`${login} did not connect`);
    });
    after(async function () {
      this.timeout(60_000);
      for (const name of [target.alice, target.bob]) await disconnect(name);
      // The UI check that follows expects the vault connections.
      await connect({ name: 'alice', url: fixture.url, login: 'alice', apiKey: fixture.keys.alice });
      await connect({ name: 'bob', url: fixture.url, login: 'bob', apiKey: fixture.keys.bob });
    });
    if (fixture.mode === 'bench') teampass3Benchmarks(fixture, target);
    else {
      treeTests(target);
      insertCopyTests(target);
      searchTests(target);
      writeTests(target);
      referenceTests(target);
      secretTests(fixture, target);
      teampass3OnlyTests(fixture, target);
      issue31TeamPass3Tests(fixture, target);
    }
  });

  const { passed, failed } = await new Promise<{ passed: number; failed: number }>((resolve) => {
    const runner = mocha.run(() =>
      resolve({ passed: runner.stats?.passes ?? 0, failed: runner.stats?.failures ?? 0 }),
    );
  });
  console.log(`${passed} passed, ${failed} failed`);
  if (failed > 0 || passed === 0) throw new Error(`${failed} test(s) failed`);
}
