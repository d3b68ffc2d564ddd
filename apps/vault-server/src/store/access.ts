import type { AccessType } from '@vaultline/protocol';

/** Who is calling: an admin key, or a key bound to one user. */
export type Principal =
  | { readonly kind: 'admin'; readonly keyLabel: string }
  | { readonly kind: 'user'; readonly keyLabel: string; readonly userId: number; readonly login: string };

/** A right's capabilities on the items of a folder. */
export interface Capabilities {
  read: boolean;
  create: boolean;
  edit: boolean;
  delete: boolean;
}

/** What each right allows (TeamPass's meanings: ND no delete, NE no edit). */
export const CAPABILITIES: Readonly<Record<Exclude<AccessType, 'none'>, Capabilities>> = {
  W: { read: true, create: true, edit: true, delete: true },
  ND: { read: true, create: true, edit: true, delete: false },
  NE: { read: true, create: true, edit: false, delete: true },
  NDNE: { read: true, create: true, edit: false, delete: false },
  R: { read: true, create: false, edit: false, delete: false },
};

/**
 * The most permissive right of several (a user with several roles): the union of what they allow.
 * ND and NE together give W.
 */
export function mostPermissive(a: AccessType | undefined, b: AccessType): AccessType {
  if (a === undefined || a === 'none') return b;
  if (b === 'none') return a;
  const ca = CAPABILITIES[a];
  const cb = CAPABILITIES[b];
  const edit = ca.edit || cb.edit;
  const del = ca.delete || cb.delete;
  const create = ca.create || cb.create;
  if (edit && del) return 'W';
  if (edit) return 'ND';
  if (del) return 'NE';
  return create ? 'NDNE' : 'R';
}

/** The capabilities of a right; nothing for none. */
export function capabilitiesOf(right: AccessType | undefined): Capabilities {
  if (right === undefined || right === 'none')
    return { read: false, create: false, edit: false, delete: false };
  return CAPABILITIES[right];
}
