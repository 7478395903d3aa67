import { FieldError, ParseResult } from '../envelope';
import { JsonRecord } from './trigger-payload';

/**
 * What-if replay (issue 19). management-api accepts a job and announces it on
 * `notify.replay.requested.v1` (through its outbox); the engine, which holds the run
 * logs and the interpreter, replays the chosen runs and reports on
 * `notify.replay.progressed.v1` in chunks, the last one with the summary. Results and
 * changes are the interpreter's (`@herald/workflow`'s `RunReplayResult` in short), kept
 * opaque here so contracts stay free of the interpreter's types.
 */
export const REPLAY_REQUESTED_TYPE = 'replay.requested';
export const REPLAY_PROGRESSED_TYPE = 'replay.progressed';
export const REPLAY_VERSION = 1;
/** The most runs one job replays. */
export const MAX_REPLAY_RUNS = 10_000;

export interface ReplaySelection {
  /** Runs started at or after (ISO). */
  readonly from?: string;
  /** Runs started before (ISO). */
  readonly to?: string;
  /** Only runs of these recipients (distinct_id). */
  readonly recipients?: readonly string[];
  /** The newest `count` matching runs. */
  readonly count: number;
}

export interface ReplayRequested {
  readonly job_id: string;
  readonly workspace_id: string;
  readonly workflow_slug: string;
  /** The workflow definition the runs are replayed against (a draft or any version). */
  readonly definition: JsonRecord;
  readonly selection: ReplaySelection;
}

export interface ReplayProgressed {
  readonly job_id: string;
  readonly workspace_id: string;
  /** 0-based; chunks of one job are applied once each. */
  readonly chunk: number;
  readonly total: number;
  /** Runs replayed so far, this chunk included. */
  readonly done: number;
  /** One entry per run of this chunk. */
  readonly results: readonly JsonRecord[];
  /** On the last chunk only. */
  readonly summary?: JsonRecord;
  /** Set when the job could not run (the last chunk too). */
  readonly error?: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function parseReplayRequested(payload: unknown): ParseResult<ReplayRequested> {
  const value = isRecord(payload) ? payload : {};
  const errors: FieldError[] = [];
  for (const field of ['job_id', 'workspace_id', 'workflow_slug']) {
    if (typeof value[field] !== 'string' || value[field] === '') errors.push({ path: `payload.${field}`, message: 'must be a non-empty string' });
  }
  if (!isRecord(value.definition)) errors.push({ path: 'payload.definition', message: 'must be an object' });
  const selection = isRecord(value.selection) ? value.selection : undefined;
  if (selection === undefined) errors.push({ path: 'payload.selection', message: 'must be an object' });
  else if (!Number.isInteger(selection.count) || (selection.count as number) < 1 || (selection.count as number) > MAX_REPLAY_RUNS) {
    errors.push({ path: 'payload.selection.count', message: `must be an integer from 1 to ${MAX_REPLAY_RUNS}` });
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: value as unknown as ReplayRequested };
}

export function parseReplayProgressed(payload: unknown): ParseResult<ReplayProgressed> {
  const value = isRecord(payload) ? payload : {};
  const errors: FieldError[] = [];
  for (const field of ['job_id', 'workspace_id']) {
    if (typeof value[field] !== 'string' || value[field] === '') errors.push({ path: `payload.${field}`, message: 'must be a non-empty string' });
  }
  for (const field of ['chunk', 'total', 'done']) {
    if (!Number.isInteger(value[field]) || (value[field] as number) < 0) errors.push({ path: `payload.${field}`, message: 'must be a non-negative integer' });
  }
  if (!Array.isArray(value.results)) errors.push({ path: 'payload.results', message: 'must be an array' });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: value as unknown as ReplayProgressed };
}
