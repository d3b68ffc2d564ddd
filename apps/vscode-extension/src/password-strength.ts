import {
  COMPLEXITY_LEVELS,
  characterKinds,
  estimateBits,
  POOL_SIZES,
  requiredBits,
} from '@vaultline/protocol';
import * as vscode from 'vscode';

/** A folder's complexity level in words (0 Very weak … 90 Very heavy), as TeamPass names them. */
export function complexityName(level: number): string {
  const names = [
    vscode.l10n.t('Very weak'),
    vscode.l10n.t('Weak'),
    vscode.l10n.t('Medium'),
    vscode.l10n.t('Strong'),
    vscode.l10n.t('Very strong'),
    vscode.l10n.t('Heavy'),
    vscode.l10n.t('Very heavy'),
  ];
  let index = 0;
  COMPLEXITY_LEVELS.forEach((known, i) => {
    if (level >= known) index = i;
  });
  return names[index] ?? String(level);
}

/**
 * What is wrong with a password for a folder, in one message that shows the folder's rule and
 * what is missing: how many more characters, or fewer with the kinds it lacks. The Vaultline
 * server says a folder's rule (`complexity_level` in read/userfolders); TeamPass does not, so there
 * an unknown rule is the strongest, and the message says that too.
 *
 * @param password The password typed.
 * @param complexityLevel The folder's level, when known.
 * @returns The message, or `undefined` when the password is strong enough.
 */
export function strengthProblem(password: string, complexityLevel: number | undefined): string | undefined {
  const needed = requiredBits(complexityLevel);
  const bits = estimateBits(password);
  if (bits >= needed) return undefined;
  const length = [...password].length;
  const kinds = characterKinds(password);
  const rule =
    complexityLevel === undefined
      ? vscode.l10n.t(
          'The vault does not say its rule, so Vaultline asks for the strongest, "{0}": {1} bits.',
          complexityName(COMPLEXITY_LEVELS[COMPLEXITY_LEVELS.length - 1]!),
          needed,
        )
      : vscode.l10n.t('It asks for "{0}": {1} bits.', complexityName(complexityLevel), needed);
  const has = vscode.l10n.t(
    'This password has {0} bits ({1} characters of {2} kinds).',
    Math.floor(bits),
    length,
    kinds.length,
  );
  // Bits per character with the kinds it has, and with all four.
  const pool = kinds.reduce((sum, kind) => sum + POOL_SIZES[kind], 0);
  const full = Object.values(POOL_SIZES).reduce((sum, size) => sum + size, 0);
  const moreAsIs = pool > 1 ? Math.ceil(needed / Math.log2(pool)) - length : Number.POSITIVE_INFINITY;
  const missing = (Object.keys(POOL_SIZES) as (keyof typeof POOL_SIZES)[]).filter(
    (kind) => !kinds.includes(kind),
  );
  const moreWithAll = Math.max(Math.ceil(needed / Math.log2(full)) - length, missing.length);
  const kindNames = {
    lower: vscode.l10n.t('lower-case letters'),
    upper: vscode.l10n.t('capitals'),
    digit: vscode.l10n.t('digits'),
    symbol: vscode.l10n.t('symbols'),
  };
  let fix: string;
  if (!Number.isFinite(moreAsIs))
    fix = vscode.l10n.t(
      'Add {0} characters with {1}, or use the generator.',
      moreWithAll,
      missing.map((kind) => kindNames[kind]).join(', '),
    );
  else if (missing.length === 0 || moreWithAll >= moreAsIs)
    fix =
      moreAsIs === 1
        ? vscode.l10n.t('Add 1 more character, or use the generator.')
        : vscode.l10n.t('Add {0} more characters, or use the generator.', moreAsIs);
  else
    fix = vscode.l10n.t(
      'Add {0} more characters, or {1} with {2}, or use the generator.',
      moreAsIs,
      moreWithAll,
      missing.map((kind) => kindNames[kind]).join(', '),
    );
  return `${vscode.l10n.t('too weak for this folder.')} ${rule} ${has} ${fix}`;
}
