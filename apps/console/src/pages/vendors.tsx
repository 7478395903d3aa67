import { Session, management, notification, ws } from '../api';
import { Problem, When, useLoad } from '../ui';

interface Vendor {
  readonly id: string;
  readonly channel: string;
  readonly vendor: string;
  readonly is_enabled: boolean;
  readonly priority: number;
  readonly base_url: string | null;
  readonly credentials: Record<string, string>;
  readonly updated_at: string;
}

interface FailedMessage {
  readonly failure_reason: string;
  readonly updated_at: string;
  readonly vendor: { nickname: string } | null;
}

/**
 * Configured vendors (management API), each with its last error: the newest failure
 * among the latest 100 messages of its channel (the notification API's message log).
 */
export function VendorsPage({ session }: { session: Session }) {
  const vendors = useLoad(async () => {
    const { results } = await management<{ results: Vendor[] }>(session.serviceToken, ws(session, 'vendor/?limit=100'));
    const channels = [...new Set(results.map((vendor) => vendor.channel))];
    const failures = new Map<string, FailedMessage[]>();
    await Promise.all(
      channels.map(async (channel) => {
        const log = await notification<{ results: FailedMessage[] }>(session, `v1/message/?channel=${channel}&limit=100`).catch(() => ({ results: [] }));
        failures.set(channel, log.results.filter((message) => message.failure_reason));
      }),
    );
    return results.map((vendor) => ({
      vendor,
      // A failed attempt names its vendor in the reason (`smtp: ...`) when no vendor took the message.
      lastError: failures.get(vendor.channel)?.find((message) => message.vendor?.nickname?.endsWith(vendor.vendor) || message.failure_reason.startsWith(`${vendor.vendor}:`)),
    }));
  }, [session.workspace]);
  return (
    <section>
      <h1>Vendors</h1>
      <Problem error={vendors.error} />
      <table>
        <thead>
          <tr>
            <th>channel</th>
            <th>vendor</th>
            <th>enabled</th>
            <th>priority</th>
            <th>credentials</th>
            <th>last error</th>
          </tr>
        </thead>
        <tbody>
          {vendors.data?.map(({ vendor, lastError }) => (
            <tr key={vendor.id}>
              <td>{vendor.channel}</td>
              <td>{vendor.vendor}</td>
              <td>{vendor.is_enabled ? 'yes' : 'no'}</td>
              <td>{vendor.priority}</td>
              <td>
                <code>{Object.entries(vendor.credentials).map(([name, value]) => `${name}: ${value}`).join(', ')}</code>
              </td>
              <td className="reason">
                {lastError ? (
                  <>
                    {lastError.failure_reason} <span className="muted">(<When at={lastError.updated_at} />)</span>
                  </>
                ) : (
                  <span className="muted">none in the latest messages</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {vendors.data?.length === 0 && <p className="muted">No vendor configured.</p>}
    </section>
  );
}
