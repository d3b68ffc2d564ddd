// Benchmarks of the Slack bot, run with plain `node bench/run.ts` (Node ≥ 23.6 strips the types).
// 1. Ack latency of 50 concurrent `/vault find` commands, against the named baseline
//    "bare Bolt ack": a Bolt app whose only listener acks at once, measured in the same run.
// 2. Time to the full answer of `/vault find` over 100 000 items, against the named baseline
//    "direct find/item": the same search made straight with the protocol client.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, HTTPReceiver } from '@slack/bolt';
import { createVaultClient } from '@vaultline/protocol';
import { startTestVault } from '@vaultline/vault-server/testing';
import { nextId, SIGNING_SECRET, slash, startBot, type TestBot } from '../test/support/bot.ts';
import { startFakeSlack } from '../test/support/fake-slack.ts';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 100_000);
const FOLDERS = 10;
const CONCURRENT = 50;
const SEED_CONCURRENCY = 32;
const ROUNDS = 5;

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
};
const median = (values: number[]) => quantile(values, 0.5);
const ms = (value: number) => `${value.toFixed(1)} ms`;

async function seed() {
  const vault = await startTestVault();
  const admin = createVaultClient({ baseUrl: vault.url, apiKey: vault.adminKey, timeoutMs: 60_000 });
  await vault.admin.createUser({ login: 'alice', email: 'alice@example.com' });
  await vault.admin.createRole({ name: 'dev' });
  await vault.admin.assignRole('alice', 'dev');
  const folderIds: number[] = [];
  for (let f = 0; f < FOLDERS; f += 1) {
    const { id } = await admin.addFolder({
      folder: { title: `Bench ${f}`, complexityLevel: 0, parentId: 0 },
    });
    await vault.admin.grant('dev', id, 'W');
    folderIds.push(id);
  }
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: SEED_CONCURRENCY }, async () => {
      for (let i = next++; i < ITEMS; i = next++) {
        const label = `item-${String(i).padStart(6, '0')}`;
        await admin.addItem({
          item: {
            label,
            password: `Pw-${i}-bench`,
            folderId: folderIds[i % FOLDERS] ?? 0,
            login: `user${i}`,
          },
        });
      }
    }),
  );
  const seedMs = performance.now() - started;
  return { vault, admin, folderIds, seedMs };
}

async function startBaseline(apiUrl: string) {
  const receiver = new HTTPReceiver({ signingSecret: SIGNING_SECRET, endpoints: '/slack/events' });
  const app = new App({ token: 'xoxb-baseline', receiver, clientOptions: { slackApiUrl: apiUrl } });
  app.command('/vault', async ({ ack }) => {
    await ack({ response_type: 'ephemeral', text: 'ok' });
  });
  const server = (await app.start({ port: 0, host: '127.0.0.1' })) as Server;
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, stop: () => app.stop() };
}

async function ackBurst(base: string, responseUrl: (id: string) => string, text: string): Promise<number[]> {
  const results = await Promise.all(
    Array.from({ length: CONCURRENT }, () =>
      slash(base, { text, user_id: 'UALICE', response_url: responseUrl(nextId('b')) }),
    ),
  );
  for (const result of results)
    if (result.status !== 200) throw new Error(`ack failed with ${result.status}`);
  return results.map((result) => result.ms);
}

async function fullAnswer(bot: TestBot, slack: Awaited<ReturnType<typeof startFakeSlack>>, text: string) {
  const id = nextId('f');
  const started = performance.now();
  await slash(bot.base, { text, user_id: 'UALICE', response_url: slack.responseUrl(id) });
  const [answer] = await slack.waitFor(() => slack.responses(id).length > 0 && slack.responses(id), 120_000);
  return { ms: performance.now() - started, text: String(answer?.text) };
}

const slack = await startFakeSlack();
console.log(
  `Seeding ${ITEMS} items in ${FOLDERS} folders through the HTTP API (${SEED_CONCURRENCY} in parallel)…`,
);
const { vault, admin, folderIds, seedMs } = await seed();
console.log(`  seeded in ${(seedMs / 1000).toFixed(1)} s (${Math.round(ITEMS / (seedMs / 1000))} items/s)`);

const baseline = await startBaseline(slack.apiUrl);
const bot = await startBot(
  { VAULT_URL: vault.url, VAULT_API_KEY: vault.adminKey, SLACK_API_URL: slack.apiUrl, LOG_LEVEL: 'warn' },
  { UALICE: 'alice' },
);

// Warm-up of both apps (JIT, sockets).
await ackBurst(baseline.base, slack.responseUrl, 'find x');
await ackBurst(bot.base, slack.responseUrl, 'help');

const baseAcks: number[] = [];
const botAcks: number[] = [];
for (let round = 0; round < ROUNDS; round += 1) {
  baseAcks.push(...(await ackBurst(baseline.base, slack.responseUrl, 'find item-0000')));
  botAcks.push(...(await ackBurst(bot.base, slack.responseUrl, 'find item-0000')));
}

// Time to the full answer. Cold: rights not cached yet (a new bot); warm: cached.
const query = 'item-04242';
const directFind: number[] = [];
for (let round = 0; round < ROUNDS; round += 1) {
  const started = performance.now();
  await admin.findItems({ folderIds, query });
  directFind.push(performance.now() - started);
}
const coldBot = await startBot(
  { VAULT_URL: vault.url, VAULT_API_KEY: vault.adminKey, SLACK_API_URL: slack.apiUrl, LOG_LEVEL: 'warn' },
  { UALICE: 'alice' },
);
const cold = await fullAnswer(coldBot, slack, `find ${query}`);
await coldBot.stop();
const warm: number[] = [];
for (let round = 0; round < ROUNDS; round += 1) warm.push((await fullAnswer(bot, slack, `find ${query}`)).ms);
const broad: number[] = [];
let broadText = '';
for (let round = 0; round < 3; round += 1) {
  const answer = await fullAnswer(bot, slack, 'find item');
  broad.push(answer.ms);
  broadText = answer.text;
}
const local: number[] = [];
for (let round = 0; round < 3; round += 1) local.push((await fullAnswer(bot, slack, 'find ítem 04242')).ms);

const p50 = median(botAcks);
const p99 = quantile(botAcks, 0.99);
const bp50 = median(baseAcks);
const bp99 = quantile(baseAcks, 0.99);
console.log('');
console.log(`Ack latency, ${CONCURRENT} concurrent /vault find × ${ROUNDS} rounds (goal p99 < 50 ms)`);
console.log(`  bot:                 p50 ${ms(p50)}  p99 ${ms(p99)}`);
console.log(`  baseline "bare Bolt ack": p50 ${ms(bp50)}  p99 ${ms(bp99)}`);
console.log(
  `  ratio bot/baseline:  p50 ${(p50 / bp50).toFixed(2)}×  p99 ${(p99 / bp99).toFixed(2)}×  → goal ${p99 < 50 ? 'met' : 'MISSED'}`,
);
console.log('');
console.log(`Time to the full answer of /vault find over ${ITEMS} items (median of ${ROUNDS})`);
console.log(`  baseline "direct find/item" (${query}): ${ms(median(directFind))}`);
console.log(
  `  bot, rights cached (${query}):         ${ms(median(warm))}  (${(median(warm) / median(directFind)).toFixed(2)}× baseline)`,
);
console.log(
  `  bot, cold (rights read for the user):  ${ms(cold.ms)}  (${(cold.ms / median(directFind)).toFixed(2)}× baseline)`,
);
console.log(`  bot, "item" matching all ${ITEMS}:      ${ms(median(broad))}  — ${broadText}`);
console.log(`  bot, "ítem 04242" matched by the bot:  ${ms(median(local))}`);

await bot.stop();
await baseline.stop();
await vault.close();
await slack.close();
