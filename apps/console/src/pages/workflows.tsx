import { useEffect, useState } from 'react';
import { VersionDiff } from '../version-diff';
import { ManagementSchema, Session, canChange, management, ws } from '../api';
import { Link, Problem, Status, When, useLoad } from '../ui';
import { WorkflowGraph } from '../workflow-graph';
import { WorkflowTest } from './workflow-test';

type Workflow = ManagementSchema<'Workflow'>;

type Version = ManagementSchema<'WorkflowVersion'>;

/**
 * A workflow's state in the list: the live version (and whether it is enabled), a draft
 * pending on top of it, or a draft that was never committed. The list answers one
 * version per workflow (the draft if there is one), so the live versions are read too.
 */
export function workflowState(latest: Workflow, live: Workflow | undefined): { label: string; tone: string } {
  const pending = latest.status === 'draft';
  if (!live) return { label: pending ? 'draft only (never committed)' : latest.status, tone: 'draft' };
  const liveLabel = `live v${live.version_no ?? '?'}${live.status === 'inactive' ? ' (disabled)' : ''}`;
  return { label: pending ? `${liveLabel}, draft pending` : liveLabel, tone: live.status === 'inactive' ? 'inactive' : 'active' };
}

export function WorkflowsPage({ session }: { session: Session }) {
  const workflows = useLoad(async () => {
    const [latest, live] = await Promise.all([
      management<{ results: Workflow[] }>(session.serviceToken, ws(session, 'workflow/?limit=100')),
      management<{ results: Workflow[] }>(session.serviceToken, ws(session, 'workflow/?limit=100&mode=live')),
    ]);
    const liveBySlug = new Map(live.results.map((workflow) => [workflow.slug, workflow]));
    return { results: latest.results.map((workflow) => ({ ...workflow, state: workflowState(workflow, liveBySlug.get(workflow.slug)) })) };
  }, [session.workspace]);
  return (
    <section>
      <h1>Workflows</h1>
      {/* Viewers read only: the API would refuse them (403) anyway. */}
      {canChange(session) && (
        <p>
          <Link to="workflows/+new">New workflow</Link>
        </p>
      )}
      <Problem error={workflows.error} />
      <table>
        <thead>
          <tr>
            <th>slug</th>
            <th>name</th>
            <th>status</th>
            <th>category</th>
            <th>updated</th>
          </tr>
        </thead>
        <tbody>
          {workflows.data?.results.map((workflow) => (
            <tr key={workflow.slug}>
              <td>
                <Link to={`workflows/${encodeURIComponent(workflow.slug)}`}>{workflow.slug}</Link>
              </td>
              <td>{workflow.name}</td>
              <td className="workflow-state">
                <span className={`status status-${workflow.state.tone}`}>{workflow.state.label}</span>
              </td>
              <td>{workflow.category}</td>
              <td>
                <When at={workflow.updated_at} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** A version's validation result: valid, or each error. */
function Validation({ result }: { result: unknown }) {
  const { is_valid, errors } = (result ?? {}) as { is_valid?: boolean; errors?: unknown[] };
  if (is_valid) return <span className="status status-completed">valid</span>;
  return (
    <ul className="validation-errors">
      {(errors ?? []).map((error, i) => (
        <li key={i}>{typeof error === 'string' ? error : JSON.stringify(error)}</li>
      ))}
    </ul>
  );
}

/** One workflow: its live version and draft drawn, every version with its validation result, diffs and rollback, and what-if replay. */
export function WorkflowPage({ session, slug }: { session: Session; slug: string }) {
  const path = `workflow/${encodeURIComponent(slug)}/`;
  const live = useLoad(() => management<Workflow>(session.serviceToken, ws(session, `${path}?mode=live`)).catch(() => null), [slug]);
  const draft = useLoad(() => management<Workflow>(session.serviceToken, ws(session, `${path}?mode=draft`)).catch(() => null), [slug]);
  const versions = useLoad(() => management<{ results: Version[] }>(session.serviceToken, ws(session, `${path}versions/`)), [slug]);
  const [problem, setProblem] = useState<string>();
  const [compared, setCompared] = useState<[number, number]>();
  const reload = () => {
    live.reload();
    draft.reload();
    versions.reload();
  };
  const act = (method: string, route: string, body?: unknown) => {
    setProblem(undefined);
    management(session.serviceToken, ws(session, `${path}${route}`), method, body).then(reload, (e: unknown) => setProblem(e instanceof Error ? e.message : String(e)));
  };
  const enabled = live.data?.is_enabled;
  return (
    <section>
      <h1>Workflow {slug}</h1>
      <p>
        <Link to={`workflows/${encodeURIComponent(slug)}/edit`}>Edit</Link> · <Link to={`runs?workflow_slug=${encodeURIComponent(slug)}`}>its runs</Link> ·{' '}
        <Link to={`messages?workflow_slug=${encodeURIComponent(slug)}`}>its messages</Link>
        {live.data && (
          <>
            {' '}
            ·{' '}
            <button type="button" className="toggle-enabled" onClick={() => act('PATCH', 'enable/', { is_enabled: !enabled })}>
              {enabled ? 'Disable' : 'Enable'}
            </button>
          </>
        )}
      </p>
      <Problem error={versions.error ?? problem} />
      <div className="trees">
        {[
          ['Live', live.data],
          // Draft mode answers the live version when there is no draft: that is no draft to draw.
          ['Draft', draft.data?.status === 'draft' ? draft.data : null],
        ].map(([label, workflow]) =>
          workflow && typeof workflow === 'object' ? (
            <div key={label as string} className="tree">
              <h2>
                {label as string} {workflow.version_no ? `v${workflow.version_no}` : ''} <Status value={workflow.status} />
              </h2>
              <WorkflowGraph nodes={workflow.tree.nodes} label={`${label as string} version graph`} />
            </div>
          ) : null,
        )}
      </div>
      {live.data && draft.data && draft.data.status !== 'draft' && <p className="muted no-draft">No pending draft: the live version is what runs.</p>}
      <h2>Versions</h2>
      <table className="versions">
        <thead>
          <tr>
            <th>version</th>
            <th>status</th>
            <th>commit message</th>
            <th>active since</th>
            <th>validation</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          {versions.data?.results.map((version, i) => (
            <tr key={i} data-version={version.version_no ?? ''}>
              <td>{version.version_no ?? 'draft'}</td>
              <td>
                <Status value={version.status} />
              </td>
              <td>{version.commit_message ?? ''}</td>
              <td>
                <When at={version.active_at} />
              </td>
              <td>
                <Validation result={version.validation_result} />
              </td>
              <td className="version-actions">
                {version.version_no && version.version_no > 1 && (
                  <button type="button" onClick={() => setCompared([(version.version_no as number) - 1, version.version_no as number])}>
                    Diff with v{version.version_no - 1}
                  </button>
                )}{' '}
                {version.status === 'archived' && version.version_no && (
                  <button type="button" onClick={() => act('POST', `versions/${version.version_no}/rollback/`)}>
                    Roll back to v{version.version_no}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {compared && (
        <VersionDiff
          subject={slug}
          versions={compared}
          heading="h2"
          read={async (version) => (await management<{ definition: unknown }>(session.serviceToken, ws(session, `workflow/${encodeURIComponent(slug)}/versions/${version}/`))).definition}
        />
      )}
      {/* Viewers only read, and a test really sends. */}
      {canChange(session) && live.data && <WorkflowTest session={session} slug={slug} />}
      <Replay session={session} slug={slug} hasDraft={Boolean(draft.data && draft.data.status === 'draft')} />
    </section>
  );
}

interface ReplayBranch {
  readonly node: string;
  readonly branch_index: number;
  readonly branch_name?: string;
}

type ReplayChange = ManagementSchema<'ReplayChange'>;

type ReplayJob = ManagementSchema<'ReplayJob'>;

const branchLabel = (branch: unknown): string => {
  if (!branch) return '(not reached)';
  const { branch_name, branch_index } = branch as ReplayBranch;
  return branch_name ?? `#${branch_index}`;
};

/** A change of the diff in words. */
function describeChange(change: ReplayChange): string {
  switch (change.kind) {
    case 'branch_changed':
      return `branch changed at ${change.node}: ${branchLabel(change.from)} → ${branchLabel(change.to)}`;
    case 'send_added':
    case 'send_dropped':
      return `${change.kind === 'send_added' ? 'send added' : 'send dropped'}: ${change.send?.channel} (${change.send?.template}) at ${change.send?.node}`;
    case 'send_moved':
      return `send moved: ${change.send?.channel} at ${change.send?.node} by ${Math.round((change.by_ms ?? 0) / 1000)} s`;
    case 'delay_moved':
      return `delay moved at ${change.node}: ${String(change.from ?? '—')} → ${String(change.to ?? '—')}`;
    case 'status_changed':
      return `status changed: ${String(change.from)} → ${String(change.to)}`;
    default:
      return change.kind;
  }
}

/** What-if replay of recorded runs against the draft (nothing is sent), polled until done, with its diff. */
export function Replay({ session, slug, hasDraft }: { session: Session; slug: string; hasDraft: boolean }) {
  const [count, setCount] = useState(20);
  const [job, setJob] = useState<ReplayJob>();
  const [error, setError] = useState<string>();
  const path = `workflow/${encodeURIComponent(slug)}/replay/`;

  useEffect(() => {
    if (!job || job.status === 'done' || job.status === 'failed') return;
    const timer = setTimeout(() => {
      management<ReplayJob>(session.serviceToken, ws(session, `${path}${job.id}/`)).then(setJob, (e: unknown) => setError(String(e)));
    }, 500);
    return () => clearTimeout(timer);
  }, [job, path, session]);

  const start = async () => {
    setError(undefined);
    setJob(undefined);
    try {
      setJob(await management<ReplayJob>(session.serviceToken, ws(session, path), 'POST', { version: 'draft', count }));
    } catch (caught) {
      setError(caught instanceof Error ? caught.message : String(caught));
    }
  };

  return (
    <div className="replay">
      <h2>What-if replay</h2>
      <p className="muted">Replays the latest recorded runs against the draft{hasDraft ? '' : ' (there is no draft: the live version is replayed)'}; nothing is sent.</p>
      <label>
        runs{' '}
        <input type="number" name="count" min={1} max={1000} value={count} onChange={(e) => setCount(Number(e.target.value))} />
      </label>{' '}
      <button type="button" onClick={() => void start()}>
        Replay the draft
      </button>
      <Problem error={error ?? job?.error ?? undefined} />
      {job && (
        <div className="replay-job">
          <p>
            job {job.id}: <Status value={job.status} /> {job.progress.done}/{job.progress.total ?? '?'} runs
          </p>
          {job.summary && (
            <div className="replay-summary">
              <p>
                {job.summary.runs_changed} of {job.summary.runs} runs change
              </p>
              <ul>
                {Object.entries(job.summary.changes)
                  .filter(([, n]) => n > 0)
                  .map(([kind, n]) => (
                    <li key={kind}>
                      {kind}: {n}
                    </li>
                  ))}
              </ul>
              <table>
                <thead>
                  <tr>
                    <th>channel:template</th>
                    <th>sends before</th>
                    <th>after</th>
                  </tr>
                </thead>
                <tbody>
                  {Object.entries(job.summary.sends_by_channel).map(([key, sends]) => (
                    <tr key={key}>
                      <td>{key}</td>
                      <td>{sends.before}</td>
                      <td>{sends.after}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {job.results && (
            <ol className="replay-diff">
              {job.results.map((result) => (
                <li key={result.run_id}>
                  <Link to={`runs/${encodeURIComponent(result.run_id)}`}>{result.run_id}</Link> ({result.recipient?.distinct_id ?? ''})
                  {result.changes.length === 0 ? (
                    <span className="muted"> unchanged</span>
                  ) : (
                    <ul>
                      {result.changes.map((change, i) => (
                        <li key={i} className={`change change-${change.kind}`}>
                          {describeChange(change)}
                        </li>
                      ))}
                    </ul>
                  )}
                </li>
              ))}
            </ol>
          )}
        </div>
      )}
    </div>
  );
}
