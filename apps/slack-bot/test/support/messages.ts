import type { FakeSlack, RecordedCall } from './fake-slack.ts';

/** A Slack message or view as the tests read it. */
export type Message = Record<string, unknown> & { blocks?: Block[]; text?: string };
/** A block. */
export type Block = {
  type: string;
  block_id?: string;
  text?: { type: string; text: string; verbatim?: boolean };
  elements?: Element[];
  element?: { initial_value?: string };
};
/** An element of a block (a button, mostly). */
export type Element = {
  type?: string;
  action_id?: string;
  value?: string;
  url?: string;
  text?: { text: string };
};

/** Every text of a message or view, joined: for `toContain` checks. */
export function textOf(message: Message | undefined): string {
  return JSON.stringify(message ?? {});
}

/** The labels of the items a result page lists. */
export function labelsOf(message: Message): string[] {
  return (message.blocks ?? [])
    .filter((block) => block.type === 'section' && /·\s+#\d+/.test(block.text?.text ?? ''))
    .map((block) => /^(.*?) {2}· {2}#\d+/.exec(block.text?.text ?? '')?.[1] ?? '');
}

/** The buttons of a message: the elements of its actions blocks. */
export function buttonsOf(message: Message): Element[] {
  return (message.blocks ?? []).flatMap((block) => (block.type === 'actions' ? (block.elements ?? []) : []));
}

/** The elements of every block of a list of blocks (none when there is no list). */
export function elementsIn(blocks: Block[] | undefined): Element[] {
  return (blocks ?? []).flatMap((block) => block.elements ?? []);
}

/** The elements of every block a Web API call sent (its `blocks`, as JSON). */
export function elementsOf(call: RecordedCall): Element[] {
  return elementsIn(JSON.parse(String(call.body.blocks)) as Block[]);
}

/**
 * The messages the bot posted (chat.postMessage) to one channel or person since the `from`-th.
 *
 * @param slack The fake Slack.
 * @param channel The channel id, or the user id of a DM.
 * @param from How many posts there were before.
 * @returns Those posts, in order.
 */
export function postsTo(slack: FakeSlack, channel: string, from: number): RecordedCall[] {
  return slack
    .apiCalls('chat.postMessage')
    .slice(from)
    .filter((call) => call.body.channel === channel);
}

/**
 * The access requests the bot sent to approvers since the `from`-th post.
 *
 * @param slack The fake Slack.
 * @param from How many posts there were before.
 * @returns Those posts, in order.
 */
export function requestPosts(slack: FakeSlack, from: number): RecordedCall[] {
  return slack
    .apiCalls('chat.postMessage')
    .slice(from)
    .filter((call) => String(call.body.text).startsWith('Access request from'));
}
