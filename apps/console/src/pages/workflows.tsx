import { useEffect, useState } from 'react';
import { Session, management, ws } from '../api';
import { Link, Problem, Status, When, useLoad } from '../ui';

interface WorkflowNode {
  readonly name?: string;
  readonly node_type: string;
  readonly template?: string;
  readonly branches?: ReadonlyArray<{ name?: string; is_default?: boolean; conditions?: unknown[]; nodes?: WorkflowNode[] }>;
  readonly [field: string]: unknown;
}

interface Workflow {
  readonly slug: string;
  readonly name: string | null;
  readonly status: string;
  readonly version_no: number | null;
  readonly category: string | null;
  readonly updated_at: string;
  readonly tree: { nodes: WorkflowNode[] };
  readonly validation_result: unknown;
}

interface Version {
  readonly version_no: number | null;
  readonly status: string;
  readonly commit_message: string | null;
  readonly active_at: string | null;
  readonly updated_at: string;
  readonly validation_result: unknown;
}

export function WorkflowsPage({ session }: { session: Session }) {
  const workflows = useLoad(() => management<{ results: Workflow[] }>(session.serviceToken, ws(session, 'workflow/?limit=100')), [session.workspace]);
  return (
    <section>
      <h1>Workflows</h1>
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
              <td>
                <Status value={workflow.status} />
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

interface Condition {
  readonly op?: string;
  readonly args?: Condition[];
  readonly variable_ns?: string;
  readonly variable?: string;
  readonly value?: unknown;
}

/** A branch's conditions in short (`plan == pro`); jq and other kinds by their type. */
function conditionText(conditions: readonly unknown[] | undefined): string {
  const expression = (c: Condition): string =>
    c.args ? c.args.map(expression).join(` ${c.op ?? 'AND'} `) : `${c.variable_ns ? `${c.variable_ns}.` : ''}${c.variable ?? '?'} ${c.op ?? ''} ${JSON.stringify(c.value ?? '')}`;
  return (conditions ?? [])
    .map((condition) => {
      const { type, expression_v1 } = condition as { type?: string; expression_v1?: Condition };
      return expression_v1 ? expression(expression_v1) : (type ?? 'condition');
    })
    .join(' OR ');
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

/** The tree as a graph: nodes top to bottom, a branch's paths side by side. */
export function TreeGraph({ nodes }: { nodes: readonly WorkflowNode[] }) {
  if (nodes.length === 0) return <div className="graph-empty muted">(no nodes)</div>;
  return (
    <ol className="graph">
      {nodes.map((node, index) => (
        <li key={index} className="graph-step">
          <div className={`graph-node node-${node.node_type}`}>
            <strong>{node.name ?? node.node_type}</strong>
            <span className="muted">
              {node.node_type}
              {node.template ? ` · ${node.template}` : ''}
              {typeof node.duration === 'string' ? ` · ${node.duration}` : ''}
            </span>
          </div>
          {node.branches && (
            <div className="graph-branches">
              {node.branches.map((branch, i) => (
                <div key={i} className="graph-branch">
                  <div className="graph-branch-name">
                    {branch.name ?? `branch ${i}`}
                    {branch.is_default ? ' (default)' : ''}
                    {conditionText(branch.conditions) && <code className="graph-condition">{conditionText(branch.conditions)}</code>}
                  </div>
                  <TreeGraph nodes={branch.nodes ?? []} />
                </div>
              ))}
            </div>
          )}
        </li>
      ))}
    </ol>
  );
}

/** One workflow: its live version and draft drawn, every version with its validation result, and what-if replay. */
export function WorkflowPage({ session, slug }: { session: Session; slug: string }) {
  const path = `workflow/${encodeURIComponent(slug)}/`;
  const live = useLoad(() => management<Workflow>(session.serviceToken, ws(session, `${path}?mode=live`)).catch(() => null), [slug]);
  const draft = useLoad(() => management<Workflow>(session.serviceToken, ws(session, `${path}?mode=draft`)).catch(() => null), [slug]);
  const versions = useLoad(() => management<{ results: Version[] }>(session.serviceToken, ws(session, `${path}versions/`)), [slug]);
  return (
    <section>
      <h1>Workflow {slug}</h1>
      <p>
        <Link to={`runs?workflow_slug=${encodeURIComponent(slug)}`}>its runs</Link> · <Link to={`messages?workflow_slug=${encodeURIComponent(slug)}`}>its messages</Link>
      </p>
      <Problem error={versions.error} />
      <div className="trees">
        {[
          ['Live', live.data],
          ['Draft', draft.data],
        ].map(([label, workflow]) =>
          workflow && typeof workflow === 'object' ? (
            <div key={label as string} className="tree">
              <h2>
                {label as string} {workflow.version_no ? `v${workflow.version_no}` : ''} <Status value={workflow.status} />
              </h2>
              <TreeGraph nodes={workflow.tree.nodes} />
            </div>
          ) : null,
        )}
      </div>
      <h2>Versions</h2>
      <table className="versions">
        <thead>
          <tr>
            <th>version</th>
            <th>status</th>
            <th>commit message</th>
            <th>active since</th>
            <th>validation</th>
          </tr>
        </thead>
        <tbody>
          {versions.data?.results.map((version, i) => (
            <tr key={i}>
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
            </tr>
          ))}
        </tbody>
      </table>
      <Replay session={session} slug={slug} hasDraft={Boolean(draft.data && draft.data.status === 'draft')} />
    </section>
  );
}

interface ReplayBranch {
  readonly node: string;
  readonly branch_index: number;
  readonly branch_name?: string;
}

interface ReplayChange {
  readonly kind: string;
  readonly node?: string;
  readonly from?: unknown;
  readonly to?: unknown;
  readonly by_ms?: number;
  readonly send?: { channel: string; template: string; node: string };
}

interface ReplayJob {
  readonly id: string;
  readonly status: string;
  readonly progress: { done: number; total: number | null };
  readonly summary: { runs: number; runs_changed: number; changes: Record<string, number>; sends_by_channel: Record<string, { before: number; after: number }> } | null;
  readonly error?: string | null;
  readonly results?: ReadonlyArray<{ run_id: string; recipient: { distinct_id?: string }; changes: ReplayChange[] }>;
}

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
function Replay({ session, slug, hasDraft }: { session: Session; slug: string; hasDraft: boolean }) {
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
                  <Link to={`runs/${encodeURIComponent(result.run_id)}`}>{result.run_id}</Link> ({result.recipient.distinct_id ?? ''})
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
