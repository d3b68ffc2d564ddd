/**
 * The answer profiles of a Vaultline server, chosen per API key: one server answers modern
 * clients and scripts written for TeamPass 2 at once. `vaultline`, the default, answers as
 * docs/api.md says (statuses that mean something, `{"err","code"}`, the spec's text `OK`);
 * `teampass` answers where a script can tell as TeamPass 2.1.27.36 does (the core's
 * `TEAMPASS2_ERRORS`). The core's client works with keys of either profile.
 *
 * @see ../../../../docs/api.md
 * @module
 */

/** The profiles, the default first. */
export const API_PROFILES = ['vaultline', 'teampass'] as const;

/** An answer profile of {@link API_PROFILES}. */
export type ApiProfile = (typeof API_PROFILES)[number];

/** The profile of a key created without one. */
export const DEFAULT_API_PROFILE: ApiProfile = 'vaultline';

/** One way the `teampass` profile answers otherwise than the default. */
export interface ProfileDifference {
  /** What it is about. */
  readonly topic: string;
  /** How a key of the default profile is answered. */
  readonly vaultline: string;
  /** How a key of the `teampass` profile is answered (as TeamPass 2.1.27.36). */
  readonly teampass: string;
}

/**
 * Every difference of the `teampass` profile: docs/api.md lists them and the OpenAPI document
 * describes them (tests hold both to this list). Everything else is answered alike.
 */
export const TEAMPASS_PROFILE_DIFFERENCES: readonly ProfileDifference[] = [
  {
    topic: 'errors',
    vaultline: '`{"err","code"}` (and `reason`) with a status that means something: 400, 403, 404, 409, 413',
    teampass:
      'TeamPass\'s words and status: 200 `{"err":"Label already exists"}`, `{"err":"User does not exist"}`, `{"err":"Folder ID does not exist"}`, `{"err":"No data exists","code":"NO_DATA_EXIST"}`; 405 for values or ids that do not decode (`Item definition not complete`, `Item definition not numeric`), a path that is no operation or a wrong method (`Method not authorized`) and an address the key\'s allow-list refuses (`Ip address not allowed.`); any other refusal 200 `{"err":"<the server\'s words>"}`; 500 stays 500',
  },
  {
    topic: 'deletes',
    vaultline: 'the text `OK` (`text/plain`), as the spec shows',
    teampass: '`{"status":"OK"}` (`application/json`)',
  },
  {
    topic: 'update/folder values',
    vaultline: 'exactly three: title, complexity level, renewal period',
    teampass:
      "three, four (the fourth ignored), or add/folder's five and more (title, complexity level, parent, renewal period, personal; parent and personal ignored)",
  },
  {
    topic: 'find/item',
    vaultline: 'every word of the text in the label, login, URL or folder path (`word-search`)',
    teampass: 'labels that contain the whole text, as TeamPass matches',
  },
  {
    topic: 'new_password rules',
    vaultline:
      'exactly as docs/spec.md §4.5 reads them: a size of digits only, each flag `0`, `1` or empty; anything else refused; no rules at all, the default password',
    teampass:
      'as TeamPass reads them: the size is the number the first value starts with (`12:1:1:10` is 12; 8 when there is none), a flag is on only when it is `1`, a missing one off; letters and digits always, symbols for `secure` (or symbols with base64); no rules at all answers `{"err":"No parameters given"}`',
  },
  {
    topic: 'info/complexicity_levels_list',
    vaultline: 'no such operation (404)',
    teampass: 'TeamPass\'s list of complexity levels: `{"0":"Very weak","25":"Weak",…,"90":"Very heavy"}`',
  },
  {
    topic: 'info/version with the key',
    vaultline: "the server's identification (`server`, `version`, `features`, `maxResults`)",
    teampass: '`{"api-version":"2.1.5"}`',
  },
];
