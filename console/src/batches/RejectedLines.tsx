import type { BatchEstimate } from '@genmedia/client';

/** The lines the API refused, with their number, customId, code and message (at most 100 named). */
export function RejectedLines({ rejected }: { rejected: BatchEstimate['rejected'] }) {
  if (rejected.count === 0) return null;
  return (
    <div className="notice error" data-testid="batch-rejected">
      <strong>{rejected.count} line(s) refused</strong>
      <ul>
        {rejected.lines.map((line) => (
          <li key={line.line}>
            Line {line.line}
            {line.customId ? ` (${line.customId})` : ''}: <code>{line.code}</code> {line.message}
          </li>
        ))}
      </ul>
      {rejected.count > rejected.lines.length && <p>… and {rejected.count - rejected.lines.length} more.</p>}
    </div>
  );
}
