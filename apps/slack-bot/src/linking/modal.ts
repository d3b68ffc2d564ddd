import type { types } from '@slack/bolt';
import { modalOf, plain } from '../blocks.ts';
import { ACTIONS, LINK_INPUT_MAX } from '../constants.ts';
import { type Asked, INPUT, LINK_BLOCKS } from './form.ts';

type Block = types.KnownBlock;

/** The title of the link form and the views that replace it. */
const LINK_TITLE = 'Link TeamPass';

/** One input of the link form, as data: {@link linkModal} reads the table. */
interface LinkField {
  /** Its input block. */
  readonly block: (typeof LINK_BLOCKS)[keyof typeof LINK_BLOCKS];
  /** The configurations that ask it ({@link Config.linkCredentials}). */
  readonly asked: readonly Asked[];
  readonly label: string;
  /** The label where the form offers both ways (password and API key, or a token). */
  readonly labelWhenBoth?: string;
  readonly hint?: string;
  readonly max: number;
  /** Optional where the form offers both ways: either way is enough. */
  readonly optionalWhenBoth: boolean;
  /** Filled in with the login of an earlier link. Only a login: never a password, key or token. */
  readonly prefill?: true;
}

/** The inputs of the link form, in order. */
export const LINK_FIELDS: readonly LinkField[] = [
  {
    block: LINK_BLOCKS.login,
    asked: ['password', 'token', 'both'],
    label: 'TeamPass login',
    max: LINK_INPUT_MAX.login,
    optionalWhenBoth: false,
    prefill: true,
  },
  {
    block: LINK_BLOCKS.password,
    asked: ['password', 'both'],
    label: 'Password',
    max: LINK_INPUT_MAX.password,
    optionalWhenBoth: true,
  },
  {
    block: LINK_BLOCKS.apiKey,
    asked: ['password', 'both'],
    label: 'Personal API key',
    hint: 'Shown in TeamPass on your profile page (API).',
    max: LINK_INPUT_MAX.apiKey,
    optionalWhenBoth: true,
  },
  {
    block: LINK_BLOCKS.token,
    asked: ['token', 'both'],
    label: 'Personal access token',
    labelWhenBoth: 'Or: personal access token',
    hint: 'Recommended: you can revoke a token in TeamPass without changing your password.',
    max: LINK_INPUT_MAX.token,
    optionalWhenBoth: true,
  },
];

/** The input block of one field of the link form. */
function inputBlock(field: LinkField, both: boolean, initial: string | undefined): Block {
  return {
    type: 'input',
    block_id: field.block,
    optional: both && field.optionalWhenBoth,
    label: plain(both ? (field.labelWhenBoth ?? field.label) : field.label),
    ...(field.hint ? { hint: plain(field.hint) } : {}),
    element: {
      type: 'plain_text_input',
      action_id: INPUT,
      max_length: field.max,
      ...(initial ? { initial_value: initial } : {}),
    },
  };
}

/**
 * The link form, in a modal only the person sees: their login, and their password with their
 * personal API key, or a personal access token (as the configuration asks); the inputs are
 * {@link LINK_FIELDS}.
 *
 * @param asked What to ask for.
 * @param externalId The external_id that ties the modal to the person.
 * @param options A problem to say at the top, and the login to fill in.
 * @returns The modal.
 */
export function linkModal(
  asked: Asked,
  externalId: string,
  options: { problem?: string | undefined; login?: string | undefined } = {},
): types.ModalView {
  const both = asked === 'both';
  const blocks: Block[] = [];
  if (options.problem) blocks.push({ type: 'section', text: plain(options.problem) });
  blocks.push({
    type: 'section',
    text: plain(
      'The bot signs in to TeamPass as you to check what you give here, then keeps it encrypted and acts as you only when you ask it something. TeamPass then decides what you see.',
    ),
  });
  for (const field of LINK_FIELDS) {
    if (!field.asked.includes(asked)) continue;
    // An input shows its value as plain text: nothing to escape, only the length to bound.
    const initial =
      field.prefill && options.login !== undefined
        ? [...options.login].slice(0, field.max).join('')
        : undefined;
    blocks.push(inputBlock(field, both, initial));
  }
  blocks.push({
    type: 'context',
    elements: [
      plain('Slack shows what you type in these boxes as you type it: make sure nobody is looking.'),
    ],
  });
  return {
    type: 'modal',
    callback_id: ACTIONS.linkModal,
    external_id: externalId,
    title: plain(LINK_TITLE),
    submit: plain('Link'),
    close: plain('Cancel'),
    blocks,
  };
}

/**
 * A modal of the link flow that only says something (checking, linked), tied to the person.
 *
 * @param text What it says.
 * @param externalId The external_id that ties the modal to the person.
 * @returns The modal.
 */
export function statusModal(text: string, externalId: string): types.ModalView {
  return { ...modalOf([{ type: 'section', text: plain(text) }], LINK_TITLE), external_id: externalId };
}
