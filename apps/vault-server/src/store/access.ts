/**
 * What a key bound to an upstream account may reach (upstream mode): the account it acts as, the
 * folders of its scope, and whether it may write. Never more than the account's own rights.
 */
export interface UpstreamGrant {
  /** The account's row id. */
  readonly accountId: number;
  /** The account's name, as the audit names it. */
  readonly accountName: string;
  /** The folders of the scope by id; `undefined` for every folder the account may reach. */
  readonly folders: readonly number[] | undefined;
  /** The folders of the scope by path (titles joined by `/`, TeamPass 3), besides `folders`. */
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

/** Who is calling: an admin key (bound to an upstream account in upstream mode), or a key bound to one user. */
export type Principal =
  | {
      readonly kind: 'admin';
      readonly keyLabel: string;
      readonly upstream?: UpstreamGrant | undefined;
      readonly workload?: WorkloadIdentity | undefined;
    }
  | {
      readonly kind: 'user';
      readonly keyLabel: string;
      readonly userId: number;
      readonly login: string;
      readonly workload?: WorkloadIdentity | undefined;
    };
