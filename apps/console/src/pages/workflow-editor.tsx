import { ReactNode, useEffect, useMemo, useRef, useState } from 'react';
import { ApiError, Session, management, ws } from '../api';
import { JsonEditor } from '../code-editor';
import { Link, Problem, Status, navigate, useLoad } from '../ui';
import {
  Branch,
  CHANNELS,
  FieldSpec,
  JsonObject,
  ListPath,
  NODE_TYPES,
  NodeError,
  NodePath,
  WorkflowDocument,
  WorkflowNode,
  addBranch,
  apiPathOf,
  comparisonCondition,
  errorsByNode,
  fieldsOf,
  insertNode,
  moveNode,
  newNode,
  nodeAt,
  nodeSummary,
  nodesOf,
  removeBranch,
  removeNode,
  updateBranch,
  updateNode,
} from '../workflow-tree';
import { WorkflowGraph } from '../workflow-graph';
import { Replay } from './workflows';

/** The fields of a workflow a client writes (the management API ignores the others). */
const WRITABLE = [
  'name',
  'description',
  'category',
  'tags',
  'ratelimit',
  'conditions',
  'trigger_type',
  'trigger_events',
  'override_recipients_type',
  'override_recipients_user_expr',
  'override_recipients_single_object_fields_expr',
  'override_actor_user_expr',
  'override_tenant_expr',
  'payload_schema',
  'tree',
] as const;

const SLUG = /^[a-z0-9-_]{1,255}$/;

interface SavedWorkflow extends JsonObject {
  readonly slug: string;
  readonly status: string;
  readonly is_enabled: boolean;
  readonly version_no: number | null;
  readonly validation_result: { is_valid: boolean; errors: string[] };
}

/** A workflow as the API answers it, down to what the editor edits: absent and empty fields left out. */
export function editableDocument(workflow: JsonObject): WorkflowDocument {
  const document: JsonObject = {};
  for (const field of WRITABLE) {
    const value = workflow[field];
    if (value === null || value === undefined || (Array.isArray(value) && value.length === 0 && field !== 'tree')) continue;
    document[field] = value;
  }
  return document;
}

const STARTER: WorkflowDocument = { name: '', category: 'transactional', trigger_type: 'api', tree: { nodes: [] } };

/** Errors of a refused request (400) as `path: message`, as a validation_result lists them. */
function refusedErrors(error: unknown): string[] {
  if (!(error instanceof ApiError) || error.status !== 400) return [];
  const detail = (error.body as { detail?: unknown } | null)?.detail;
  return typeof detail === 'string' ? detail.split('; ') : [];
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Creates or edits a workflow: the node tree as a list (add, move, delete nodes and
 * branches), a form for the selected node, and the JSON beside it, all one document.
 * The document is checked as it changes (POST .../validate/, nothing saved), and each
 * error is shown on the node it names; saving keeps a draft (valid or not), committing
 * makes it live with a message.
 */
export function WorkflowEditorPage({ session, slug }: { session: Session; slug?: string }) {
  const [newSlug, setNewSlug] = useState('');
  const target = slug ?? newSlug;
  const [document, setDocument] = useState<WorkflowDocument>(slug ? {} : STARTER);
  const [text, setText] = useState(() => JSON.stringify(slug ? {} : STARTER, null, 2));
  const [jsonProblem, setJsonProblem] = useState<string>();
  const [selected, setSelected] = useState<NodePath>();
  const [errors, setErrors] = useState<string[]>([]);
  const [saved, setSaved] = useState<SavedWorkflow>();
  const [commitMessage, setCommitMessage] = useState('');
  const [problem, setProblem] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [busy, setBusy] = useState(false);

  const templates = useLoad(
    () => management<{ results: Array<{ slug: string }> }>(session.serviceToken, ws(session, 'template/?limit=100', 'v2')).then((r) => r.results.map((t) => t.slug)),
    [session.workspace],
  );
  const loaded = useLoad(
    () => (slug ? management<SavedWorkflow>(session.serviceToken, ws(session, `workflow/${encodeURIComponent(slug)}/?mode=draft`)) : Promise.resolve(undefined)),
    [slug],
  );
  useEffect(() => {
    if (!loaded.data) return;
    edit(editableDocument(loaded.data));
    setSaved(loaded.data);
    setErrors(loaded.data.validation_result?.errors ?? []);
  }, [loaded.data]);

  /** Every change goes through here: the form, the tree and the JSON stay one document. */
  function edit(next: WorkflowDocument) {
    setDocument(next);
    setText(JSON.stringify(next, null, 2));
    setJsonProblem(undefined);
  }

  function typed(nextText: string) {
    setText(nextText);
    try {
      const parsed: unknown = JSON.parse(nextText);
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('the workflow must be a JSON object');
      setDocument(parsed as WorkflowDocument);
      setJsonProblem(undefined);
    } catch (caught) {
      setJsonProblem(message(caught));
    }
  }

  // Checked as it changes, a moment after the last keystroke; only the latest answer counts.
  const checks = useRef(0);
  const ready = !slug || loaded.data !== undefined;
  useEffect(() => {
    // Nothing to check before an existing workflow has loaded (it would list every field as missing).
    if (!ready) return;
    const checkSlug = SLUG.test(target) ? target : 'new-workflow';
    const sequence = ++checks.current;
    const timer = setTimeout(() => {
      management<{ validation_result: { errors: string[] } }>(session.serviceToken, ws(session, `workflow/${checkSlug}/validate/`), 'POST', document).then(
        (answer) => sequence === checks.current && setErrors(answer.validation_result.errors),
        (caught: unknown) => sequence === checks.current && setErrors(refusedErrors(caught).length ? refusedErrors(caught) : [message(caught)]),
      );
    }, 400);
    return () => clearTimeout(timer);
  }, [document, target, session, ready]);

  const grouped = useMemo(() => errorsByNode(errors), [errors]);

  async function save(commit: boolean) {
    setProblem(undefined);
    setNotice(undefined);
    if (!SLUG.test(target)) {
      setProblem('the slug must be 1 to 255 characters a-z, 0-9, - or _');
      return;
    }
    setBusy(true);
    try {
      const query = commit ? `?commit=true&commit_message=${encodeURIComponent(commitMessage)}` : '';
      const answer = await management<SavedWorkflow>(session.serviceToken, ws(session, `workflow/${target}/${query}`), 'POST', document);
      setSaved(answer);
      setErrors(answer.validation_result.errors);
      if (commit && answer.status === 'draft') setProblem('Not committed: the draft is invalid (see the errors on its nodes). It was saved as the draft.');
      else setNotice(commit ? `Committed: live version ${answer.version_no ?? ''}.` : `Draft saved (version ${answer.version_no ?? ''}${answer.validation_result.is_valid ? ', valid' : ', invalid'}).`);
      if (commit && answer.status !== 'draft') setCommitMessage('');
      if (!slug) navigate(`workflows/${encodeURIComponent(target)}/edit`);
    } catch (caught) {
      setProblem(message(caught));
      const refused = refusedErrors(caught);
      if (refused.length) setErrors(refused);
    } finally {
      setBusy(false);
    }
  }

  const nodes = nodesOf(document);
  const selectedNode = selected && nodeAt(nodes, selected);

  return (
    <section className="workflow-editor">
      <h1>{slug ? `Edit workflow ${slug}` : 'New workflow'}</h1>
      {slug && (
        <p>
          <Link to={`workflows/${encodeURIComponent(slug)}`}>versions, enable or disable</Link>
          {saved && (
            <>
              {' '}
              · <Status value={saved.status} /> {saved.version_no ? `v${saved.version_no}` : ''}
            </>
          )}
        </p>
      )}
      <Problem error={loaded.error ?? problem} />
      {notice && <p className="notice">{notice}</p>}
      <WorkflowFields document={document} onChange={edit} slug={slug} newSlug={newSlug} onSlug={setNewSlug} errors={grouped.workflow} />
      <div className="editor-graph">
        <h2>Graph</h2>
        <WorkflowGraph nodes={nodes} label="workflow graph" errors={grouped.byNode} selected={selected} onSelect={setSelected} />
      </div>
      <div className="editor-panes">
        <div className="editor-tree">
          <h2>Nodes</h2>
          <NodeList
            nodes={nodes}
            list={[]}
            context={{ document, edit, selected, select: setSelected, errors: grouped.byNode, template: templates.data?.[0] ?? '' }}
          />
        </div>
        <div className="editor-form">
          <h2>{selectedNode ? `Node ${selectedNode.name ?? selectedNode.node_type}` : 'Node'}</h2>
          {selected && selectedNode ? (
            <NodeForm
              node={selectedNode}
              errors={grouped.byNode.get(apiPathOf(selected)) ?? []}
              templates={templates.data ?? []}
              onChange={(fields) => edit(updateNode(document, selected, fields))}
              onBranch={(index, fields) => edit(updateBranch(document, selected, index, fields))}
            />
          ) : (
            <p className="muted">Select a node to edit its fields.</p>
          )}
        </div>
        <div className="editor-json">
          <h2>JSON</h2>
          <JsonEditor value={text} onChange={typed} label="workflow JSON" />
          {jsonProblem && <p className="json-problem">JSON: {jsonProblem} (the tree shows the last valid document)</p>}
        </div>
      </div>
      <div className="editor-actions">
        <button type="button" disabled={busy} onClick={() => void save(false)}>
          Save draft
        </button>
        <label>
          commit message <input name="commit_message" value={commitMessage} onChange={(e) => setCommitMessage(e.target.value)} />
        </label>
        <button type="button" disabled={busy} onClick={() => void save(true)}>
          Commit
        </button>
        <span className={`validity ${errors.length ? 'invalid' : 'valid'}`}>{errors.length ? `${errors.length} problem${errors.length === 1 ? '' : 's'}` : 'valid'}</span>
      </div>
      {slug && <Replay session={session} slug={slug} hasDraft={saved?.status === 'draft'} />}
    </section>
  );
}

function WorkflowFields(props: {
  document: WorkflowDocument;
  onChange: (next: WorkflowDocument) => void;
  slug?: string;
  newSlug: string;
  onSlug: (slug: string) => void;
  errors: readonly string[];
}) {
  const { document, onChange } = props;
  const set = (field: string, value: unknown) => {
    const next: JsonObject = { ...document, [field]: value };
    if (value === '' || value === undefined) delete next[field];
    onChange(next);
  };
  const text = (field: string) => (typeof document[field] === 'string' ? (document[field] as string) : '');
  return (
    <div className="workflow-fields">
      {!props.slug && (
        <label>
          slug <input name="slug" value={props.newSlug} onChange={(e) => props.onSlug(e.target.value)} placeholder="order-shipped" />
        </label>
      )}
      <label>
        name <input name="workflow-name" value={text('name')} onChange={(e) => set('name', e.target.value)} />
      </label>
      <label>
        category <input name="category" list="categories" value={text('category')} onChange={(e) => set('category', e.target.value)} />
        <datalist id="categories">
          <option value="system" />
          <option value="transactional" />
          <option value="promotional" />
        </datalist>
      </label>
      <label>
        trigger{' '}
        <select name="trigger_type" value={text('trigger_type')} onChange={(e) => set('trigger_type', e.target.value)}>
          <option value="api">api</option>
          <option value="event">event</option>
        </select>
      </label>
      {document.trigger_type === 'event' && (
        <label>
          events{' '}
          <input
            name="trigger_events"
            value={Array.isArray(document.trigger_events) ? document.trigger_events.join(', ') : ''}
            onChange={(e) => set('trigger_events', e.target.value.split(',').map((s) => s.trim()).filter(Boolean))}
          />
        </label>
      )}
      {props.errors.length > 0 && (
        <ul className="validation-errors workflow-errors">
          {props.errors.map((error) => (
            <li key={error}>{error}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

interface TreeContext {
  readonly document: WorkflowDocument;
  edit(next: WorkflowDocument): void;
  readonly selected?: NodePath;
  select(path: NodePath | undefined): void;
  readonly errors: Map<string, NodeError[]>;
  /** The template a new send node names first. */
  readonly template: string;
}

const samePath = (a?: NodePath, b?: NodePath) => Boolean(a && b && a.length === b.length && a.every((v, i) => v === b[i]));

/** A node list (the tree's, or a branch's) with a way to add a node at its end. */
function NodeList({ nodes, list, context }: { nodes: readonly WorkflowNode[]; list: ListPath; context: TreeContext }) {
  const [type, setType] = useState<string>('send_email');
  const listPath = list.length ? `${apiPathOf(list.slice(0, -1))}.branches[${list[list.length - 1]}].nodes` : 'tree.nodes';
  return (
    <ol className="editor-nodes" data-list={listPath}>
      {nodes.map((node, index) => (
        <NodeItem key={index} node={node} path={[...list, index]} last={index === nodes.length - 1} context={context} />
      ))}
      <li className="add-node">
        <select name="add-node-type" aria-label="node type" value={type} onChange={(e) => setType(e.target.value)}>
          {NODE_TYPES.map((nodeType) => (
            <option key={nodeType} value={nodeType}>
              {nodeType}
            </option>
          ))}
        </select>{' '}
        <button
          type="button"
          onClick={() => {
            context.edit(insertNode(context.document, list, newNode(type, context.template)));
            context.select([...list, nodes.length]);
          }}
        >
          Add node
        </button>
      </li>
    </ol>
  );
}

function IconButton({ label, onClick, children, disabled }: { label: string; onClick: () => void; children: ReactNode; disabled?: boolean }) {
  return (
    <button
      type="button"
      className="icon"
      aria-label={label}
      title={label}
      disabled={disabled}
      onClick={(event) => {
        event.stopPropagation();
        onClick();
      }}
    >
      {children}
    </button>
  );
}

function NodeItem({ node, path, last, context }: { node: WorkflowNode; path: NodePath; last: boolean; context: TreeContext }) {
  const key = apiPathOf(path);
  const errors = context.errors.get(key) ?? [];
  const { document, edit } = context;
  const index = path[path.length - 1];
  return (
    <li className="editor-step">
      <div
        className={`editor-node node-${node.node_type}${errors.length ? ' invalid' : ''}${samePath(context.selected, path) ? ' selected' : ''}`}
        data-node={key}
        onClick={() => context.select(path)}
      >
        <div className="editor-node-head">
          <strong>{node.name || '(no name)'}</strong> <span className="muted">{node.node_type}</span>
          <span className="editor-node-buttons">
            <IconButton label="move up" disabled={index === 0} onClick={() => edit(moveNode(document, path, -1))}>
              ↑
            </IconButton>
            <IconButton label="move down" disabled={last} onClick={() => edit(moveNode(document, path, 1))}>
              ↓
            </IconButton>
            <IconButton
              label="delete node"
              onClick={() => {
                edit(removeNode(document, path));
                context.select(undefined);
              }}
            >
              ✕
            </IconButton>
          </span>
        </div>
        {nodeSummary(node) && <div className="muted editor-node-summary">{nodeSummary(node)}</div>}
        {errors.length > 0 && (
          <ul className="node-errors">
            {errors.map((error, i) => (
              <li key={i}>{error.field ? `${error.field}: ${error.message}` : error.message}</li>
            ))}
          </ul>
        )}
      </div>
      {Array.isArray(node.branches) && (
        <div className="editor-branches">
          {node.branches.map((branch, b) => (
            <div key={b} className="editor-branch">
              <div className="editor-branch-head">
                <span>
                  {branch.name ?? `branch ${b + 1}`}
                  {branch.is_default ? ' (default)' : ''}
                </span>
                {node.node_type === 'branch' && !branch.is_default && (
                  <IconButton label="delete branch" onClick={() => edit(removeBranch(document, path, b))}>
                    ✕
                  </IconButton>
                )}
              </div>
              <NodeList nodes={branch.nodes ?? []} list={[...path, b]} context={context} />
            </div>
          ))}
          {node.node_type === 'branch' && (
            <button type="button" className="add-branch" onClick={() => edit(addBranch(document, path))}>
              Add branch
            </button>
          )}
        </div>
      )}
    </li>
  );
}

/** The selected node's form: its type's fields, each with the errors the API gave for it. */
function NodeForm(props: {
  node: WorkflowNode;
  errors: readonly NodeError[];
  templates: readonly string[];
  onChange: (fields: JsonObject) => void;
  onBranch: (index: number, fields: JsonObject) => void;
}) {
  const { node, errors, onChange } = props;
  const fields = fieldsOf(node.node_type).filter((field) => field.when?.(node) ?? true);
  const shown = new Set(fields.map((field) => field.name));
  const others = errors.filter((error) => !shown.has(error.field.split(/[.[]/)[0]) && !error.field.startsWith('branches['));
  return (
    <div className="node-form">
      {fields.map((field) => (
        <FieldInput key={`${field.name}-${field.kind}`} field={field} node={node} templates={props.templates} onChange={onChange} errors={errors.filter((e) => e.field === field.name || e.field.startsWith(`${field.name}.`))} />
      ))}
      {Array.isArray(node.branches) &&
        node.branches.map((branch, index) => (
          <BranchForm
            key={index}
            branch={branch}
            index={index}
            waitUntil={node.node_type === 'branch_waituntil'}
            errors={errors.filter((e) => e.field.startsWith(`branches[${index}]`))}
            onChange={(fields) => props.onBranch(index, fields)}
          />
        ))}
      {others.length > 0 && (
        <ul className="validation-errors">
          {others.map((error, i) => (
            <li key={i}>{error.field ? `${error.field}: ${error.message}` : error.message}</li>
          ))}
        </ul>
      )}
      <p className="muted">Fields this form does not show (a digest's schedule, relative_to, headers) are edited in the JSON.</p>
    </div>
  );
}

const KIND_HINT: Partial<Record<FieldSpec['kind'], string>> = { duration: 'duration', jq: 'jq', jsonnet: 'Jsonnet' };

function FieldInput({ field, node, templates, onChange, errors }: { field: FieldSpec; node: WorkflowNode; templates: readonly string[]; onChange: (fields: JsonObject) => void; errors: readonly NodeError[] }) {
  const value = node[field.name];
  const set = (next: unknown) => onChange({ [field.name]: next === '' ? undefined : next });
  const name = `field-${field.name}`;
  let input: ReactNode;
  switch (field.kind) {
    case 'select':
      input = (
        <select name={name} value={typeof value === 'string' ? value : ''} onChange={(e) => set(e.target.value)}>
          {(field.options ?? []).map((option) => (
            <option key={option} value={option}>
              {option || '(default)'}
            </option>
          ))}
        </select>
      );
      break;
    case 'integer':
      input = <input name={name} type="number" value={typeof value === 'number' ? value : ''} onChange={(e) => set(e.target.value === '' ? undefined : Number(e.target.value))} />;
      break;
    case 'boolean':
      input = <input name={name} type="checkbox" checked={value === true} onChange={(e) => set(e.target.checked || undefined)} />;
      break;
    case 'channels': {
      const chosen = Array.isArray(value) ? (value as string[]) : [];
      input = (
        <span className="channels">
          {CHANNELS.map((channel) => (
            <label key={channel}>
              <input
                type="checkbox"
                name={`${name}-${channel}`}
                checked={chosen.includes(channel)}
                onChange={(e) => set(e.target.checked ? [...chosen, channel] : chosen.filter((c) => c !== channel))}
              />
              {channel}
            </label>
          ))}
        </span>
      );
      break;
    }
    case 'jsonnet':
      input = <textarea name={name} className="code" rows={3} value={typeof value === 'string' ? value : ''} onChange={(e) => set(e.target.value)} />;
      break;
    default:
      input = (
        <input
          name={name}
          className={field.kind === 'jq' || field.kind === 'duration' ? 'code' : undefined}
          list={field.kind === 'template' ? 'template-slugs' : undefined}
          value={typeof value === 'string' ? value : ''}
          onChange={(e) => set(e.target.value)}
        />
      );
  }
  return (
    <div className={`form-field${errors.length ? ' invalid' : ''}`}>
      <label>
        <span className="field-name">
          {field.name}
          {KIND_HINT[field.kind] ? <span className="muted"> ({KIND_HINT[field.kind]})</span> : null}
        </span>
        {input}
      </label>
      {field.kind === 'template' && (
        <datalist id="template-slugs">
          {templates.map((slug) => (
            <option key={slug} value={slug} />
          ))}
        </datalist>
      )}
      {field.help && <span className="muted field-help">{field.help}</span>}
      {errors.map((error, i) => (
        <span key={i} className="field-error">
          {error.message}
        </span>
      ))}
    </div>
  );
}

const OPS = ['==', '!=', '>', '<', '>=', '<=', 'EMPTY', 'NON_EMPTY', 'CONTAINS', 'NOT_CONTAINS'];
const NAMESPACES = ['', '$recipient', '$actor', '$tenant', '$workflow'];

/**
 * A branch: its name, whether it is the default, and (a branch of a `branch` node that is
 * not the default) one comparison; anything richer (OR, nesting) is edited in the JSON.
 */
function BranchForm({ branch, index, waitUntil, errors, onChange }: { branch: Branch; index: number; waitUntil: boolean; errors: readonly NodeError[]; onChange: (fields: JsonObject) => void }) {
  const condition = (branch.conditions?.[0] ?? {}) as { expression_v1?: { args?: Array<Record<string, string>> } };
  const args = condition.expression_v1?.args;
  const comparison = args?.length === 1 && !('args' in args[0]) ? args[0] : undefined;
  const simple = !waitUntil && !branch.is_default && (branch.conditions?.length ?? 0) <= 1 && (comparison || !branch.conditions?.length);
  const setComparison = (fields: Record<string, string>) => {
    const current = { variable_ns: '', variable: '', op: '==', value: '', ...comparison, ...fields };
    onChange({ conditions: [comparisonCondition(current.variable, current.op, current.value, current.variable_ns)] });
  };
  return (
    <fieldset className={`branch-form${errors.length ? ' invalid' : ''}`} data-branch={index}>
      <legend>branch {index + 1}</legend>
      <label>
        name <input name={`branch-${index}-name`} value={branch.name ?? ''} onChange={(e) => onChange({ name: e.target.value })} />
      </label>
      {!waitUntil && (
        <label>
          <input type="checkbox" name={`branch-${index}-default`} checked={branch.is_default === true} onChange={(e) => onChange({ is_default: e.target.checked, ...(e.target.checked ? { conditions: [] } : {}) })} />{' '}
          default
        </label>
      )}
      {simple && (
        <div className="condition">
          <select name={`branch-${index}-ns`} aria-label="variable namespace" value={comparison?.variable_ns ?? ''} onChange={(e) => setComparison({ variable_ns: e.target.value })}>
            {NAMESPACES.map((ns) => (
              <option key={ns} value={ns}>
                {ns || 'data'}
              </option>
            ))}
          </select>
          <input name={`branch-${index}-variable`} aria-label="variable" placeholder="variable" value={comparison?.variable ?? ''} onChange={(e) => setComparison({ variable: e.target.value })} />
          <select name={`branch-${index}-op`} aria-label="operator" value={comparison?.op ?? '=='} onChange={(e) => setComparison({ op: e.target.value })}>
            {OPS.map((op) => (
              <option key={op} value={op}>
                {op}
              </option>
            ))}
          </select>
          <input name={`branch-${index}-value`} aria-label="value" placeholder="value" value={comparison?.value ?? ''} onChange={(e) => setComparison({ value: e.target.value })} />
        </div>
      )}
      {!simple && !branch.is_default && <p className="muted">Its conditions are edited in the JSON.</p>}
      {errors.map((error, i) => (
        <span key={i} className="field-error">
          {error.field}: {error.message}
        </span>
      ))}
    </fieldset>
  );
}
