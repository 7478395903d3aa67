import { NotificationAnswer, NotificationSchema, Session, notification } from '../api';
import { Link, Problem, navigate, useLoad } from '../ui';

/** GET /v1/message/stats/'s counters. */
type Counts = NotificationSchema<'MessageCounts'>;

type Stats = NotificationAnswer<'/v1/message/stats/', 'get'>;

const SHOWN = ['total', 'sent', 'delivered', 'seen', 'clicked', 'failed', 'skipped', 'in_flight'] as const;
const WORDS: Record<(typeof SHOWN)[number], string> = { total: 'messages', sent: 'sent', delivered: 'delivered', seen: 'seen', clicked: 'clicked', failed: 'failed', skipped: 'skipped', in_flight: 'in flight' };
/** Where a counter's messages are listed (GET /v1/message/'s status filter). */
const LISTED: Partial<Record<(typeof SHOWN)[number], string>> = { failed: 'status=delivery_failed', skipped: 'status=not_sent', in_flight: 'status=triggered', delivered: 'status=delivered' };

function CountsRow({ counts }: { counts: Counts }) {
  return (
    <>
      {SHOWN.map((name) => (
        <td key={name} className={`count-${name}`}>
          {counts[name]}
        </td>
      ))}
    </>
  );
}

/** Bars of sent, failed and skipped per bucket, scaled to the busiest one. */
function Chart({ series, bucket }: { series: Stats['series']; bucket: 'hour' | 'day' }) {
  const most = Math.max(1, ...series.map((entry) => entry.total));
  return (
    <div className="chart" role="img" aria-label={`messages per ${bucket}`}>
      {series.map((entry) => (
        <div key={entry.start} className="chart-bar" title={`${new Date(entry.start).toLocaleString()}: ${entry.sent} sent, ${entry.failed} failed, ${entry.skipped} skipped, ${entry.in_flight} in flight`}>
          {(['in_flight', 'skipped', 'failed', 'sent'] as const).map((name) => (
            <span key={name} className={`bar-${name}`} style={{ height: `${(entry[name] / most) * 100}%` }} />
          ))}
        </div>
      ))}
    </div>
  );
}

/** What the workspace sent lately, from Herald's own message log (GET /v1/message/stats/). */
export function OverviewPage({ session, query }: { session: Session; query: URLSearchParams }) {
  const bucket = query.get('bucket') === 'day' ? 'day' : 'hour';
  const stats = useLoad(() => notification<Stats>(session, `v1/message/stats/?bucket=${bucket}`), [bucket]);
  const data = stats.data;
  return (
    <section>
      <h1>Overview</h1>
      <nav className="filters">
        <button type="button" disabled={bucket === 'hour'} onClick={() => navigate('overview?bucket=hour')}>
          Last 24 hours
        </button>
        <button type="button" disabled={bucket === 'day'} onClick={() => navigate('overview?bucket=day')}>
          Last 30 days
        </button>
        <button type="button" onClick={stats.reload}>
          Refresh
        </button>
      </nav>
      <Problem error={stats.error} />
      {data && (
        <>
          <div className="stat-cards">
            {SHOWN.map((name) => (
              <div key={name} className="stat" data-stat={name}>
                <strong className="stat-value">{data.totals[name]}</strong>
                <span className="muted">{LISTED[name] ? <Link to={`messages?${LISTED[name]}`}>{WORDS[name]}</Link> : WORDS[name]}</span>
              </div>
            ))}
          </div>
          {data.totals.retrying > 0 && <p className="muted">{data.totals.retrying} of those in flight wait for a retry.</p>}
          <Chart series={data.series} bucket={data.meta.bucket} />
          <p className="muted legend">
            <span className="bar-sent" /> sent <span className="bar-failed" /> failed <span className="bar-skipped" /> skipped <span className="bar-in_flight" /> in flight — per {data.meta.bucket}, {new Date(data.meta.from).toLocaleString()} to{' '}
            {new Date(data.meta.to).toLocaleString()}
          </p>
          <h2>By channel</h2>
          <table className="by-channel">
            <thead>
              <tr>
                <th>channel</th>
                {SHOWN.map((name) => (
                  <th key={name}>{WORDS[name]}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {data.by_channel.map((row) => (
                <tr key={row.channel} data-channel={row.channel}>
                  <td>
                    <Link to={`messages?channel=${encodeURIComponent(row.channel)}`}>{row.channel}</Link>
                  </td>
                  <CountsRow counts={row} />
                </tr>
              ))}
            </tbody>
          </table>
          <h2>By vendor</h2>
          <table className="by-vendor">
            <thead>
              <tr>
                <th>vendor</th>
                {SHOWN.map((name) => (
                  <th key={name}>{WORDS[name]}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {data.by_vendor.map((row) => (
                <tr key={row.vendor ?? '—'} data-vendor={row.vendor ?? ''}>
                  <td>{row.vendor ?? <span className="muted">none (skipped or not tried yet)</span>}</td>
                  <CountsRow counts={row} />
                </tr>
              ))}
            </tbody>
          </table>
          <h2>Skipped, by reason</h2>
          <table className="skipped-by-reason">
            <tbody>
              {data.skipped_by_reason.map((row) => (
                <tr key={row.reason}>
                  <td>{row.reason || '—'}</td>
                  <td>{row.count}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {data.skipped_by_reason.length === 0 && <p className="muted">Nothing skipped.</p>}
          <h2>Failed, by reason</h2>
          <table className="failed-by-reason">
            <tbody>
              {data.failed_by_reason.map((row) => (
                <tr key={row.reason}>
                  <td className="reason">{row.reason || '—'}</td>
                  <td>{row.count}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {data.failed_by_reason.length === 0 && <p className="muted">Nothing failed.</p>}
          <h2>By workflow</h2>
          <table className="by-workflow">
            <tbody>
              {data.by_workflow.map((row) => (
                <tr key={row.workflow_slug}>
                  <td>
                    <Link to={`messages?workflow_slug=${encodeURIComponent(row.workflow_slug)}`}>{row.workflow_slug}</Link>
                  </td>
                  <CountsRow counts={row} />
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
