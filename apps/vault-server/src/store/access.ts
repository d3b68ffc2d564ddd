/** Who is calling: an admin key, or a key bound to one user. */
export type Principal =
  | { readonly kind: 'admin'; readonly keyLabel: string }
  | { readonly kind: 'user'; readonly keyLabel: string; readonly userId: number; readonly login: string };
