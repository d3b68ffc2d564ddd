import type { App, Receiver, ReceiverEvent } from '@slack/bolt';
import type { Logger } from 'pino';
import * as v from 'valibot';
import {
  SLACK_MAX_ACTION_ID,
  SLACK_MAX_ACTION_VALUE,
  SLACK_MAX_INPUT_VALUE,
  SLACK_MAX_PRIVATE_METADATA,
} from '../constants.ts';

/** A Slack user id as Slack writes it. */
export const SlackUserIdSchema = v.pipe(v.string(), v.regex(/^[UW][A-Z0-9]{2,30}$/));

const text = (max: number) => v.pipe(v.string(), v.maxLength(max));
const optionalText = (max: number) => v.optional(v.nullable(text(max)));

/** An input's value in a view's state. */
const InputStateSchema = v.looseObject({
  value: optionalText(SLACK_MAX_INPUT_VALUE),
  selected_option: v.optional(v.nullable(v.looseObject({ value: optionalText(SLACK_MAX_ACTION_VALUE) }))),
});

const ViewSchema = v.looseObject({
  id: optionalText(64),
  external_id: optionalText(SLACK_MAX_ACTION_ID),
  callback_id: optionalText(SLACK_MAX_ACTION_ID),
  private_metadata: optionalText(SLACK_MAX_PRIVATE_METADATA),
  state: v.optional(
    v.looseObject({
      values: v.optional(v.record(v.string(), v.record(v.string(), InputStateSchema))),
    }),
  ),
});

const ActionSchema = v.looseObject({
  action_id: text(SLACK_MAX_ACTION_ID),
  block_id: optionalText(SLACK_MAX_ACTION_ID),
  value: optionalText(SLACK_MAX_INPUT_VALUE),
  selected_option: v.optional(v.nullable(v.looseObject({ value: optionalText(SLACK_MAX_ACTION_VALUE) }))),
});

/** The parts of an interactive payload a listener may read, each within Slack's own limits. */
const InteractiveSchema = v.looseObject({
  user: v.looseObject({ id: SlackUserIdSchema }),
  actions: v.optional(v.pipe(v.array(ActionSchema), v.maxLength(25))),
  view: v.optional(v.nullable(ViewSchema)),
  callback_id: optionalText(SLACK_MAX_ACTION_ID),
  action_id: optionalText(SLACK_MAX_ACTION_ID),
  // An options request's typed text.
  value: optionalText(SLACK_MAX_ACTION_VALUE),
  trigger_id: optionalText(SLACK_MAX_ACTION_ID),
});

/** A slash command: who typed it (the text is checked by each subcommand). */
const CommandSchema = v.looseObject({ user_id: SlackUserIdSchema });

/** Why a payload was refused: where, and which check (never the value). */
interface PayloadProblem {
  reason: 'no_user' | 'too_long';
  path: string;
  check: string;
}

/** The payload types of interactivity: each names the user who acted. */
const INTERACTIVE_TYPES: ReadonlySet<string> = new Set([
  'block_actions',
  'block_suggestion',
  'view_submission',
  'view_closed',
  'shortcut',
  'message_action',
  'interactive_message',
  'dialog_submission',
  'dialog_suggestion',
  'dialog_cancellation',
]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/**
 * Checks the values a listener may take from a payload before Bolt sees it: a Slack user id on
 * every command and interactive payload (Bolt itself fails on `user: null`), and every button
 * value, input value, view field and options text within the lengths Slack allows. Events are
 * left to their listeners.
 *
 * @param body The parsed body.
 * @returns The problem, or undefined when the payload is within bounds.
 */
export function payloadProblem(body: unknown): PayloadProblem | undefined {
  if (!isRecord(body)) return undefined;
  const schema =
    typeof body.command === 'string'
      ? CommandSchema
      : typeof body.type === 'string' && INTERACTIVE_TYPES.has(body.type)
        ? InteractiveSchema
        : undefined;
  if (!schema) return undefined;
  const result = v.safeParse(schema, body);
  if (result.success) return undefined;
  const issue = result.issues[0];
  const path = v.getDotPath(issue) ?? '';
  const user = path === 'user' || path === 'user.id' || path === 'user_id';
  return { reason: user ? 'no_user' : 'too_long', path, check: issue.type };
}

/**
 * Wraps a receiver so that a payload outside Slack's bounds ({@link payloadProblem}) is
 * acknowledged with nothing done and logged (where and which check, never the value), in HTTP and
 * Socket Mode alike: Slack never sends one, so there is nobody to answer.
 *
 * @param inner The receiver.
 * @param logger The bot's logger.
 * @returns The receiver.
 */
export function withPayloadCheck(inner: Receiver, logger: Logger): Receiver {
  return {
    init(app: App) {
      const processEvent = async (event: ReceiverEvent) => {
        const problem = payloadProblem(event.body);
        if (!problem) return app.processEvent(event);
        const type =
          isRecord(event.body) && typeof event.body.type === 'string' ? event.body.type : 'command';
        logger.warn(
          { type, path: problem.path, check: problem.check },
          problem.reason === 'no_user'
            ? 'ignored a request with no valid user'
            : 'ignored a request with a value Slack never sends (longer than Slack allows)',
        );
        await event.ack();
      };
      inner.init(Object.assign(Object.create(app) as App, { processEvent }));
    },
    start: (...args: unknown[]) => inner.start(...args),
    stop: (...args: unknown[]) => inner.stop(...args),
  };
}
