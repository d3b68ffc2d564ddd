/**
 * TeamPass 3's records as the one client interface gives them, and the values it sends back:
 * items, folders, tags and complexity levels.
 *
 * @see ../README.md
 * @module
 */

import { REDACTED, VaultError } from '../../errors.ts';
import type { ItemWrite } from '../../legacy/codec.ts';
import type { Folder, Item } from '../../legacy/schemas.ts';
import { customFieldsOf } from '../../legacy/schemas.ts';
import type { ComplexityLevel } from '../../legacy/segments.ts';
import type { AccessType } from '../../rights.ts';
import type { TeamPass3Item, TeamPass3WritableFolder } from '../schemas.ts';

/** TeamPass 3's folder complexity levels (minimum password strength: very weak, weak, medium, strong, very strong). */
export const TEAMPASS3_COMPLEXITY_LEVELS = [0, 20, 38, 48, 60] as const;

/** A TeamPass 3 complexity level. */
export type TeamPass3ComplexityLevel = (typeof TEAMPASS3_COMPLEXITY_LEVELS)[number];

/**
 * The legacy complexity levels as TeamPass 3 names the same strengths: 0 very weak, 25 weak → 20,
 * 50 medium → 38, 60 strong → 48, and 70 very strong, 80 heavy, 90 very heavy → 60 (TeamPass 3's
 * strongest).
 */
export const COMPLEXITY_TO_TEAMPASS3: Readonly<Record<ComplexityLevel, TeamPass3ComplexityLevel>> = {
  0: 0,
  25: 20,
  50: 38,
  60: 48,
  70: 60,
  80: 60,
  90: 60,
};

/**
 * A TeamPass 3 folder's complexity as the legacy level of the same strength (the weakest legacy
 * level TeamPass 3's maps to: 60, its strongest, is 70 "very strong"), or `undefined` for a value
 * that is not one of its levels.
 */
export function complexityFromTeamPass3(complexity: number): ComplexityLevel | undefined {
  const levels = Object.entries(COMPLEXITY_TO_TEAMPASS3) as unknown as [string, number][];
  const found = levels.find(([, mapped]) => mapped === complexity);
  return found ? (Number(found[0]) as ComplexityLevel) : undefined;
}

/**
 * A folder TeamPass 3 lets the user write to, as the apps' `Folder`, with the right they have on it.
 *
 * @param record The folder as TeamPass 3 answers it.
 * @param accessType The right, folded with the user's API permissions.
 * @returns The folder.
 */
export function toFolder(record: TeamPass3WritableFolder, accessType: AccessType): Folder {
  const parentId = record.parentId;
  return {
    id: record.id,
    title: record.title,
    level: record.level,
    accessType,
    parentId,
    personal: record.personal,
    complexityLevel: complexityFromTeamPass3(record.complexity),
    raw: {
      ...record.raw,
      id: record.id,
      title: record.title,
      level: record.level,
      access_type: accessType,
      parent_id: parentId,
      personal: record.personal ? '1' : '0',
      complexity_level: String(complexityFromTeamPass3(record.complexity) ?? ''),
    },
  };
}

/**
 * A TeamPass 3 item as the apps' `Item`: the TOTP secret TeamPass sends in clear is not kept,
 * unless the client was made for a migration (`keepOtpSecrets`).
 */
export function toItem(record: TeamPass3Item, keepOtpSecret = false): Item {
  const fields = customFieldsOf(record.raw.fields);
  return {
    ...(fields ? { fields } : {}),
    ...(keepOtpSecret && record.raw.totp !== ''
      ? {
          otpSecret: {
            secret: record.raw.totp,
            algorithm: record.raw.totp_algorithm || 'sha1',
            digits: record.raw.totp_digits || 6,
            period: record.raw.totp_period || 30,
          },
        }
      : {}),
    id: record.id,
    label: record.label,
    description: record.description,
    login: record.login,
    email: record.email,
    url: record.url,
    password: record.password,
    folderId: record.folderId,
    path: record.path,
    tags: record.tags,
    otp: record.otp,
    raw: { ...record.raw, totp: record.raw.totp === '' ? '' : REDACTED },
  };
}

/** Tags as TeamPass 3 takes them: one text, words apart. */
export function tagsOf(tags: ItemWrite['tags']): string | undefined {
  if (tags === undefined) return undefined;
  return typeof tags === 'string' ? tags : tags.join(' ');
}

/** A legacy complexity level as TeamPass 3's; `invalid_request` for one that is not a level. */
export function complexityOf(level: number): TeamPass3ComplexityLevel {
  const mapped = COMPLEXITY_TO_TEAMPASS3[level as ComplexityLevel];
  if (mapped === undefined) {
    throw new VaultError(
      'invalid_request',
      `Expected a complexity level of ${Object.keys(COMPLEXITY_TO_TEAMPASS3).join(', ')}, received ${JSON.stringify(level)}.`,
    );
  }
  return mapped;
}
