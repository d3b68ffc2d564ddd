/**
 * How the API answers a key, by the key's profile (`keys create --profile`): `vaultline`, as
 * docs/api.md says, or `teampass`, as TeamPass 2.1.27.36 answers where a script can tell, so that
 * scripts written for TeamPass keep working on this server beside modern clients. What TeamPass
 * answers comes from the core (`TEAMPASS2_ERRORS`); the differences are listed once, in the core's
 * `TEAMPASS_PROFILE_DIFFERENCES`, and in docs/api.md ("The teampass profile").
 *
 * A profile applies once the request's key is known: a missing, unknown or revoked key, the
 * failed-key lockout, the request rate limit and an overlong URL are answered as docs/api.md says
 * whatever the profile, since the server cannot know the caller's before.
 *
 * @module
 */

import { neutralizeText, VaultError } from '@vaultline/protocol';
import {
  type ApiProfile,
  decodeLenientFolderUpdate,
  decodeTeamPassPasswordRules,
  type EndpointName,
  idListSegment,
  idSegment,
  itemSegment,
  passwordRulesSegment,
  TEAMPASS2_COMPLEXITY_LEVELS_BODY,
  TEAMPASS2_COMPLEXITY_LEVELS_PATH,
  TEAMPASS2_DELETE_BODY,
  TEAMPASS2_ERRORS,
  TEAMPASS2_VERSION_BODY,
} from '@vaultline/protocol/wire';
import type { Logger } from 'pino';
import {
  AddressNotAllowedError,
  NoSuchOperationError,
  RateLimitedError,
  SegmentDecodeError,
  UpstreamRefusalError,
  WrongMethodError,
} from '../errors.ts';
import { loggableError } from '../logger.ts';
import { StoreError } from '../store/errors.ts';
import type { FindMatch } from '../store/items.ts';
import type { ApiAnswer } from './api-call.ts';
import { answer, JSON_HEADERS } from './api-response.ts';
import { answerError, INTERNAL_ERROR, toApiError } from './error-mapping.ts';

/** A decoder that replaces a row's own for one path parameter. */
type SegmentDecoder = (segment: string) => unknown;

/** How the API answers the keys of one profile, where the profiles differ. */
export interface AnswerProfile {
  /** The profile's name. */
  readonly name: ApiProfile;
  /** The body of a delete that succeeded: the spec's text, or TeamPass's JSON. */
  readonly deleted: string | object;
  /** Decoders that replace a row's own, by operation and parameter (the lenient folder values). */
  readonly decoders: Readonly<Partial<Record<EndpointName, Readonly<Record<string, SegmentDecoder>>>>>;
  /** The answer to `info/version` asked with a key of the profile; `undefined`: the identification. */
  readonly version: ApiAnswer | undefined;
  /**
   * Fixed answers to `GET` paths that are no row of the endpoint table, by path after the API
   * prefix (TeamPass's `info/complexicity_levels_list`): none for the default profile.
   */
  readonly fixed: Readonly<Record<string, ApiAnswer>>;
  /**
   * What find/item matches: every word in the label, login, URL or folder path (`word-search`), or,
   * as TeamPass does, labels that contain the whole text.
   */
  readonly find: FindMatch;
  /**
   * The answer to an error of a request whose key is of this profile.
   *
   * @param error Whatever was thrown.
   * @param logger Where an unexpected error is logged.
   */
  answerError(error: unknown, logger: Logger): ApiAnswer;
}

/** The default profile: docs/api.md. */
const VAULTLINE: AnswerProfile = {
  name: 'vaultline',
  deleted: 'OK',
  decoders: {},
  version: undefined,
  fixed: {},
  find: 'words',
  answerError,
};

/** An answer in TeamPass's shape: `{"err"}`, with TeamPass's own `code` where it sends one. */
function teampassError(status: number, body: { readonly err: string; readonly code?: string }): ApiAnswer {
  return answer(
    status,
    JSON_HEADERS,
    JSON.stringify({
      err: neutralizeText(body.err),
      ...(body.code === undefined ? {} : { code: body.code }),
    }),
  );
}

/** The refusals TeamPass has no words for: HTTP 200 with this server's words, as TeamPass answers its own. */
const inOwnWords = (error: { message: string }): ApiAnswer => teampassError(200, { err: error.message });

/**
 * TeamPass's answer to an error, or `undefined` where the default's stands (the key's own
 * failures, the rate limit) or the error is unexpected.
 */
function asTeamPass(error: unknown): ApiAnswer | undefined {
  const written = (name: keyof typeof TEAMPASS2_ERRORS) => {
    const row = TEAMPASS2_ERRORS[name];
    return teampassError(row.status, row.body);
  };
  if (error instanceof RateLimitedError) return undefined;
  if (error instanceof SegmentDecodeError) {
    if (error.segment === itemSegment) return written('itemNotComplete');
    if (error.segment === idSegment || error.segment === idListSegment) return written('itemNotNumeric');
    // The only rules TeamPass's reading refuses: none at all.
    if (error.segment === passwordRulesSegment) return written('noParameters');
    return inOwnWords(error);
  }
  if (error instanceof NoSuchOperationError || error instanceof WrongMethodError)
    return written('methodNotAuthorized');
  if (error instanceof AddressNotAllowedError) return written('ipNotAllowed');
  if (error instanceof StoreError) {
    if (error.reason === 'similar_label') return written('labelExists');
    if (error.reason === 'unknown_user') return written('userMissing');
    if (error.reason === 'unknown_folder') return written('folderMissing');
    if (error.reason === 'too_many_folders') return written('noFolderSpecified');
    if (error.kind === 'not_found') return written('noDataExists');
    return inOwnWords(error);
  }
  // TeamPass's own words, unchanged: what a script written for it compares.
  if (error instanceof UpstreamRefusalError && error.upstreamWords !== undefined) {
    const row = Object.values(TEAMPASS2_ERRORS).find((known) => known.body.err === error.upstreamWords);
    return teampassError(row?.status ?? 200, { err: error.upstreamWords });
  }
  if (error instanceof VaultError) {
    if (error.code === 'unauthorized' || error.code === 'rate_limited') return undefined;
    return inOwnWords(error);
  }
  // A concurrent change the database refused (its words are the default's, its status TeamPass's).
  const mapped = toApiError(error);
  return mapped ? inOwnWords({ message: mapped.body.err }) : undefined;
}

/** The `teampass` profile: TeamPass 2.1.27.36's answers. */
const TEAMPASS: AnswerProfile = {
  name: 'teampass',
  deleted: TEAMPASS2_DELETE_BODY,
  decoders: {
    updateFolder: { folder: decodeLenientFolderUpdate },
    generatePassword: { rules: decodeTeamPassPasswordRules },
  },
  version: answer(200, JSON_HEADERS, JSON.stringify(TEAMPASS2_VERSION_BODY)),
  fixed: {
    [TEAMPASS2_COMPLEXITY_LEVELS_PATH]: answer(
      200,
      JSON_HEADERS,
      JSON.stringify(TEAMPASS2_COMPLEXITY_LEVELS_BODY),
    ),
    // new_password with no rules segment at all: TeamPass's NO_PARAMETERS, as for an empty one.
    '/new_password': teampassError(TEAMPASS2_ERRORS.noParameters.status, TEAMPASS2_ERRORS.noParameters.body),
  },
  find: 'label',
  answerError(error, logger) {
    const teampass = asTeamPass(error);
    if (teampass) return teampass;
    if (toApiError(error)) return answerError(error, logger);
    logger.error({ err: loggableError(error) }, 'request failed');
    return teampassError(INTERNAL_ERROR.status, { err: INTERNAL_ERROR.body.err });
  },
};

/** Every profile, by name. */
export const ANSWER_PROFILES: Readonly<Record<ApiProfile, AnswerProfile>> = {
  vaultline: VAULTLINE,
  teampass: TEAMPASS,
};

/** The profile of a request whose key is not known (yet). */
export const DEFAULT_ANSWER_PROFILE: AnswerProfile = VAULTLINE;
