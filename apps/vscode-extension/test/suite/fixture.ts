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
  /** How many items the bulk folder holds (bench only). */
  bulkCount?: number;
}

export function readFixture(): Fixture {
  const raw = process.env.VAULTLINE_TEST_FIXTURE;
  if (!raw)
    throw new Error('VAULTLINE_TEST_FIXTURE is not set: run the suite through test/run-code-server.mjs.');
  return JSON.parse(raw) as Fixture;
}
