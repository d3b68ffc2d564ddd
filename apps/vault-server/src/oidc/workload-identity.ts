/**
 * The identity a key issued by a trust policy carries into the audit: the policy, the token's
 * issuer and subject, and the claims that say which job or pod it is, where the platform sets them
 * (GitHub Actions: repository, workflow, run id, ref; GitLab CI: project, pipeline, job, ref;
 * Kubernetes: namespace, service account, pod). Claims are copied as text, each at most 200
 * characters; never the token.
 *
 * @module
 */

import type { JWTPayload } from 'jose';
import type { WorkloadIdentity } from '../store/access.ts';

/** The claims copied, by platform. */
const IDENTITY_CLAIMS = [
  // GitHub Actions
  'repository',
  'workflow',
  'run_id',
  'run_attempt',
  'ref',
  'environment',
  'actor',
  'job_workflow_ref',
  // GitLab CI
  'project_path',
  'pipeline_id',
  'job_id',
  'ref_type',
] as const;

/**
 * The identity of a verified token.
 *
 * @param policy The trust policy's name.
 * @param payload The token's claims, verified.
 * @returns The identity.
 */
export function workloadIdentityOf(policy: string, payload: JWTPayload): WorkloadIdentity {
  const identity: Record<string, string> = { policy };
  const put = (name: string, value: unknown) => {
    if (typeof value === 'string' || typeof value === 'number') identity[name] = String(value).slice(0, 200);
  };
  put('iss', payload.iss);
  put('sub', payload.sub);
  for (const name of IDENTITY_CLAIMS) put(name, payload[name]);
  // Kubernetes: { "kubernetes.io": { namespace, serviceaccount: { name }, pod: { name } } }
  const kubernetes = payload['kubernetes.io'];
  if (typeof kubernetes === 'object' && kubernetes !== null) {
    const k8s = kubernetes as Record<string, unknown>;
    put('namespace', k8s.namespace);
    put('serviceaccount', (k8s.serviceaccount as Record<string, unknown> | undefined)?.name);
    put('pod', (k8s.pod as Record<string, unknown> | undefined)?.name);
  }
  return identity;
}
