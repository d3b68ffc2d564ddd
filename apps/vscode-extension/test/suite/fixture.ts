/** What the harness seeded, passed to the extension host in `VAULTLINE_TEST_FIXTURE` (JSON). */
export interface SeededItem {
  id: number;
  label: string;
  login: string;
  password: string;
  url: string;
  email: string;
  folderId: number;
}

export interface Fixture {
  /** The running vault server. */
  url: string;
  /** A URL where nothing listens: the "server down" case. */
  downUrl: string;
  /**
   * `admin` is the TeamPass-style shared key; `alice`, `bob`, `carol` (NE) and `dave` (no role: no
   * folder) are bound to their users; `revoked` was alice's until it was revoked.
   */
  keys: { admin: string; alice: string; bob: string; carol: string; dave: string; revoked: string };
  /** User ids (a personal folder is titled with its owner's id). */
  users: { alice: number };
  folders: { infra: number; databases: number; payments: number; bulk?: number };
  items: { web: SeededItem; ci: SeededItem; db: SeededItem; stripe: SeededItem };
  attachment: { itemId: number; name: string; text: string };
  /** Fresh literals for the secret-detection tests (a GitHub-format token, passwords). */
  detection: { token: string; password: string; history: string };
  /** code-server's user data directory (`User/History` holds VS Code's Local History). */
  userDataDir: string;
  /** `test` or `bench`. */
  mode: string;
  /** The TeamPass replay servers, seeded like the vault (the second without file endpoints). */
  teampass: {
    url: string;
    noFilesUrl: string;
    /** TeamPass's one shared key. */
    key: string;
    folders: { infra: number; databases: number; payments: number };
    items: { web: SeededItem; ci: SeededItem; db: SeededItem; stripe: SeededItem };
    attachment: { itemId: number; name: string; text: string };
  };
  /** The TeamPass 3 fake, seeded like the vault, plus what only TeamPass 3 has. */
  teampass3: TeamPass3Fixture;
  /** How many items the bulk folder holds (bench only). */
  bulkCount?: number;
}

/** A TeamPass 3 user: each signs in with a password and a personal API key. */
export interface TeamPass3User {
  login: string;
  password: string;
  apiKey: string;
}

/** What `test/seed-teampass3.mjs` seeded in the TeamPass 3 fake. */
export interface TeamPass3Fixture {
  url: string;
  /** The fake's control API (`test/seed-teampass3.mjs`): sign-ins, its clock, API flags, settings. */
  controlUrl: string;
  /**
   * alice (Devs: Infrastructure W, Databases W, Payments R), bob (Support: Infrastructure R), dave
   * (Devs, but his API permissions exclude update and delete), erin (the deep tree and the hostile
   * labels), admin (an administrator: the tests' own client).
   */
  users: {
    alice: TeamPass3User;
    bob: TeamPass3User;
    dave: TeamPass3User;
    erin: TeamPass3User;
    admin: TeamPass3User;
  };
  folders: {
    infra: number;
    databases: number;
    payments: number;
    /** The 20th level of erin's tree. */
    deepest: number;
    hostile: number;
    bulk?: number;
  };
  /** The titles of the 20 levels, top first. */
  levels: string[];
  items: { web: SeededItem; ci: SeededItem; db: SeededItem; stripe: SeededItem };
  /** The item at the bottom of the 20 levels. */
  deep: { id: number; label: string; login: string };
  /** An item and folder whose label and title are full of entities and emoji. */
  hostile: { id: number; label: string; login: string; folder: string };
  /** The item with a one-time code (ci), and its tags. */
  otp: { itemId: number; tags: string[] };
  /** A Vaultline server in upstream mode in front of the fake: a machine key as alice, cut to Infrastructure and its subfolders. */
  upstream: { url: string; login: string; apiKey: string };
  bulkCount: number;
}

export function readFixture(): Fixture {
  const raw = process.env.VAULTLINE_TEST_FIXTURE;
  if (!raw)
    throw new Error('VAULTLINE_TEST_FIXTURE is not set: run the suite through test/run-code-server.mjs.');
  return JSON.parse(raw) as Fixture;
}
