/** An item row as reads select it: the password still sealed. Cached by id on PGlite. */
export interface ItemRow {
  id: number;
  folder_id: number;
  label: string;
  description: string;
  login: string;
  email: string;
  url: string;
  password: Uint8Array;
  /** Whether a TOTP secret is stored. */
  has_otp: boolean;
  /** The custom fields, sealed JSON; `null`: none. */
  fields: Uint8Array | null;
  anyone_can_modify?: boolean;
}
