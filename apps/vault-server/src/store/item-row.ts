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
  anyone_can_modify?: boolean;
}
