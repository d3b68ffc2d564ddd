// The named baseline "bare Bolt ack": a Bolt app on the same receiver whose only listener acks at
// once, in its own process like the bot.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, HTTPReceiver, LogLevel } from '@slack/bolt';

const receiver = new HTTPReceiver({
  signingSecret: process.env.SLACK_SIGNING_SECRET ?? '',
  endpoints: '/slack/events',
});
const app = new App({
  token: process.env.SLACK_BOT_TOKEN ?? '',
  receiver,
  logLevel: LogLevel.ERROR,
  clientOptions: { slackApiUrl: process.env.SLACK_API_URL ?? '' },
});
app.command('/vault', async ({ ack }) => {
  await ack({ response_type: 'ephemeral', text: 'ok' });
});
const server = (await app.start({ port: 0, host: '127.0.0.1' })) as Server;
// The floor of the machine and the load generator: node:http answering without Bolt.
const bare = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.setHeader('content-type', 'application/json');
    res.end('{"response_type":"ephemeral","text":"ok"}');
  });
});
await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
process.send?.({
  port: (server.address() as AddressInfo).port,
  barePort: (bare.address() as AddressInfo).port,
});
process.on('disconnect', () => process.exit(0));
