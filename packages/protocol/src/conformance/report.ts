/**
 * The lines a person reads after a conformance run.
 *
 * @module
 */

import type { ConformanceReport } from './types.ts';

/**
 * The lines a person reads after the operations: one per finding (with whether it is a known
 * TeamPass limit), and a summary that counts the operations and names the known limits.
 *
 * @param report The report.
 * @returns One line per finding, then the summary line.
 */
export function formatFindings(report: Pick<ConformanceReport, 'findings' | 'results'>): string[] {
  const lines = report.findings.map(
    (finding) =>
      `${finding.outcome.toUpperCase().padEnd(9)} ${finding.check.padEnd(17)} ${finding.detail}${
        finding.knownTeamPassLimit ? ' (known TeamPass limit)' : ''
      }`,
  );
  const passed = report.results.filter((result) => result.ok === true).length;
  const failed = report.results.filter((result) => result.ok === false).length;
  const skipped = report.results.filter((result) => result.ok === undefined).length;
  const limits = report.findings.filter((finding) => finding.knownTeamPassLimit);
  const other = report.findings.filter(
    (finding) =>
      !finding.knownTeamPassLimit && finding.outcome !== 'supported' && finding.outcome !== 'not-run',
  );
  const notRun = report.findings.filter((finding) => finding.outcome === 'not-run');
  lines.push(
    `${passed} passed, ${failed} failed, ${skipped} skipped` +
      (limits.length > 0
        ? `; known TeamPass limits: ${limits.map((f) => `${f.check} ${f.outcome}`).join(', ')}`
        : '') +
      (other.length > 0
        ? `; other findings: ${other.map((f) => `${f.check} ${f.outcome}`).join(', ')}`
        : '') +
      (notRun.length > 0 ? `; checks not run: ${notRun.map((f) => f.check).join(', ')}` : ''),
  );
  return lines;
}
