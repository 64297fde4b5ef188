import { useMutation, useQuery } from '@tanstack/react-query';
import { ErrorNotice } from '../components/ErrorNotice';
import { formatTime } from '../format';
import { useSession } from '../session';

/** The job's webhook events with every delivery attempt, and a button to send the final event again. */
export function WebhookLog({ jobId }: { jobId: string }) {
  const { client, can } = useSession();
  const log = useQuery({ queryKey: ['webhooks', jobId], queryFn: ({ signal }) => client.jobWebhooks(jobId, { signal }), refetchInterval: 5_000 });
  const redeliver = useMutation({ mutationFn: () => client.redeliverWebhook(jobId), onSettled: () => void log.refetch() });
  return (
    <section aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhook deliveries</h2>
      {log.error ? <ErrorNotice error={log.error} context="Webhook log" /> : null}
      {log.data && log.data.events.length === 0 && <p className="muted">No webhook event yet.</p>}
      {log.data?.events.map((event) => (
        <details key={event.webhookId} open>
          <summary>
            {event.type} → {event.url}: <strong>{event.status}</strong>
          </summary>
          <table>
            <thead>
              <tr>
                <th scope="col">Attempt</th>
                <th scope="col">Time</th>
                <th scope="col">Result</th>
                <th scope="col">Duration</th>
              </tr>
            </thead>
            <tbody>
              {event.attempts.map((a) => (
                <tr key={`${a.attempt}-${a.attemptedAt}`}>
                  <td>
                    {a.attempt}
                    {a.redelivery ? ' (redelivery)' : ''}
                  </td>
                  <td>{formatTime(a.attemptedAt)}</td>
                  <td>{a.statusCode ?? a.error}</td>
                  <td>{a.durationMs} ms</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      ))}
      {log.data && log.data.events.length > 0 && (
        <button type="button" onClick={() => redeliver.mutate()} disabled={redeliver.isPending || !can('submit_job')}>
          Redeliver
        </button>
      )}
      {redeliver.error ? <ErrorNotice error={redeliver.error} context="Redeliver" /> : null}
      {redeliver.isSuccess && <p role="status">Redelivery started.</p>}
    </section>
  );
}
