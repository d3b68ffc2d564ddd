/**
 * What a key bound to an upstream account may reach (upstream mode): the account it acts as, the
 * folders of its scope, and whether it may write. Never more than the account's own rights.
 */
export interface UpstreamGrant {
  /** The account's row id. */
  readonly accountId: number;
  /** The account's name, as the audit names it. */
  readonly accountName: string;
  /** The TeamPass 3 login the account acts as; empty on TeamPass 2, whose key acts for nobody. */
  readonly accountLogin: string;
  /**
   * The folders of the scope by id (folder paths given at creation are resolved to ids then);
   * `undefined` for every folder the account may reach.
   */
  readonly folders: readonly number[] | undefined;
  /**
   * Folder paths not yet resolved to ids: only keys made before paths were resolved at creation
   * have some; the server resolves them once, on the key's first use, and keeps the ids.
   */
  readonly paths: readonly string[];
  /** Whether the scope's folders include their subfolders. */
  readonly subfolders: boolean;
  /** Whether the key may write (read-only by default). */
  readonly write: boolean;
}

/**
 * The workload a key was issued to by a trust policy (OIDC): the policy, the token's issuer and
 * subject, and the claims that say which job or pod it is (repository, workflow, run id, ref;
 * project, pipeline; namespace, service account). Never the token.
 */
export type WorkloadIdentity = Readonly<Record<string, string>>;

/**
 * Who is calling: an admin key, a key bound to one user of the server's own vault, or a machine
 * key bound to an upstream account (upstream mode), which acts as that account within its grant.
 * A key issued by a trust policy carries the workload it was issued to.
 */
export type Principal =
  | { readonly kind: 'admin'; readonly keyLabel: string; readonly workload?: WorkloadIdentity | undefined }
  | {
      readonly kind: 'user';
      readonly keyLabel: string;
      readonly userId: number;
      readonly login: string;
      readonly workload?: WorkloadIdentity | undefined;
    }
  | UpstreamPrincipal;

/** A machine key bound to an upstream account: who acts upstream, and within what. */
export interface UpstreamPrincipal {
  readonly kind: 'upstream';
  readonly keyLabel: string;
  readonly grant: UpstreamGrant;
  readonly workload?: WorkloadIdentity | undefined;
}
