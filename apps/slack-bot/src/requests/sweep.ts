import { AUDIT_EVENTS } from '../constants.ts';
import type { Deps } from '../deps.ts';
import { announceExpired, auditEnded } from './notify.ts';

/**
 * Ends what is due: pending requests past their time (both sides are told) and grants past
 * theirs. Each row is taken by one instance only (one atomic update).
 *
 * @param deps The bot's parts.
 */
export async function sweepRequests(deps: Deps): Promise<void> {
  const { expired, closed } = await deps.requests.expireDue();
  for (const request of expired) await announceExpired(deps, request);
  for (const request of closed)
    await auditEnded(deps, request, AUDIT_EVENTS.grantExpired, request.revealsLeft <= 0 ? 'used' : 'expired');
}
