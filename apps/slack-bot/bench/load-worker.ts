// The load generator, on its own thread: acks are timed here, so the fake Slack's work on the main
// thread (the response_url posts) cannot delay reading them.
import { parentPort } from 'node:worker_threads';
import { slash } from '../test/support/bot.ts';

interface Burst {
  base: string;
  text: string;
  /** One text per command, when they differ (a mix of find and request). */
  texts?: string[] | undefined;
  responseUrls: string[];
}

parentPort?.on('message', async ({ base, text, texts, responseUrls }: Burst) => {
  const results = await Promise.all(
    responseUrls.map((url, index) =>
      slash(base, { text: texts?.[index] ?? text, user_id: 'UALICE', response_url: url }),
    ),
  );
  parentPort?.postMessage({ ms: results.map((r) => r.ms), statuses: results.map((r) => r.status) });
});
