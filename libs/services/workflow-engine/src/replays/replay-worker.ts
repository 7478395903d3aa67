import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  JsonRecord,
  REPLAY_PROGRESSED_TYPE,
  REPLAY_REQUESTED_TYPE,
  REPLAY_VERSION,
  ReplayProgressed,
  ReplayRequested,
  TOPICS,
  deterministicUuid,
  envelopeMessage,
  envelopeOf,
  parseReplayRequested,
} from '@herald/contracts';
import { MessageBus } from '@herald/bus';
import { RunIndexRepository } from '../http/run-index.repository';
import { CLOCK, Clock, ConsumerOf, HERALD_LOGGER, HeraldLogger, MESSAGE_BUS } from '@herald/runtime';
import { PreferencePolicy, RunDecider, RunEvent, RunExpressions, ReplaySummary, RunReplayResult, WorkflowDefinition, createRunDecider, recordedRunOf, summarizeReplay, whatIf } from '@herald/workflow';
import { RunContextLoader } from '../runs/run-context-loader';
import { PREFERENCE_POLICY, RUN_EXPRESSIONS } from '../runs/run-host';
import { runKey } from '../runs/run-stream';

/** Runs per progress message: keeps each well under the bus's message size. */
const CHUNK_RUNS = 200;

/**
 * What-if replays (issue 19): management-api announces a job on
 * `notify.replay.requested.v1`; this worker picks the recorded runs the job selects,
 * rebuilds each one's inputs from its log (`recordedRunOf`), replays them under the
 * run's own definition (the baseline) and under the job's, and reports each chunk and
 * finally the summary on `notify.replay.progressed.v1`. Nothing is appended, sent,
 * called or scheduled: the interpreter is pure and only its events are looked at.
 *
 * The log records decisions, not the context the host loaded, so every input of a
 * replay gets the context the engine holds now (profile, preferences, live templates of
 * both definitions). A redelivered job is replayed again; management applies each chunk once.
 */
@Controller()
export class ReplayWorker {
  private readonly decider: RunDecider;

  constructor(
    private readonly index: RunIndexRepository,
    private readonly contexts: RunContextLoader,
    @Inject(RUN_EXPRESSIONS) expressions: RunExpressions,
    @Inject(PREFERENCE_POLICY) preferences: PreferencePolicy,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
  ) {
    this.decider = createRunDecider({ expressions, preferences });
  }

  @ConsumerOf({ groupId: 'herald.engine.replays', topics: [TOPICS.replayRequested.name], messages: { type: REPLAY_REQUESTED_TYPE, parsePayload: parseReplayRequested } })
  async replay(@Payload() job: ReplayRequested): Promise<void> {
    const began = performance.now();
    const definition = job.definition as unknown as WorkflowDefinition;
    // management validates the definition before announcing the job; anything else ends the job, not the consumer.
    if (!Array.isArray(definition.tree?.nodes)) {
      await this.report(job, 0, 0, [], undefined, 'the definition has no tree of nodes');
      return;
    }
    const runs = await this.index.streamsToReplay(job.workspace_id, job.workflow_slug, job.selection);
    const all: RunReplayResult[] = [];
    if (runs.length === 0) await this.report(job, 0, 0, [], summarizeReplay([]));
    for (let chunk = 0; chunk * CHUNK_RUNS < runs.length; chunk += 1) {
      const streamIds = runs.slice(chunk * CHUNK_RUNS, (chunk + 1) * CHUNK_RUNS);
      const results = await this.replayStreams(job, streamIds, definition);
      all.push(...results);
      const done = Math.min(runs.length, (chunk + 1) * CHUNK_RUNS);
      await this.report(job, chunk, runs.length, results.map(resultView), done === runs.length ? summarizeReplay(all) : undefined);
    }
    this.logger.info('replay job done', { job_id: job.job_id, runs: runs.length, ms: Math.round(performance.now() - began) });
  }

  private async replayStreams(job: ReplayRequested, streamIds: readonly string[], definition: WorkflowDefinition): Promise<RunReplayResult[]> {
    const streams = await this.index.runLogs(streamIds);
    const logs = streamIds.map((id) => (streams.get(id) ?? []).map((event) => ({ event: event.data as RunEvent, at: event.recordedAt })));
    const startedOf = logs.map((log) => (log[0]?.event.type === 'run.started.v1' ? log[0].event : undefined));
    const requests = startedOf.flatMap((started) =>
      started === undefined
        ? []
        : [
            {
              workspaceId: job.workspace_id,
              // Both definitions' templates, so the baseline and the draft each find theirs.
              workflow: { slug: started.workflow.slug, definition: { ...definition, tree: { nodes: [...started.definition.tree.nodes, ...definition.tree.nodes] } } },
              recipient: started.recipient,
              recipientKey: runKey(job.workspace_id, started.recipient, started.run_id),
              ...(started.tenant_id === undefined ? {} : { tenantId: started.tenant_id }),
            },
          ],
    );
    const contexts = await this.contexts.loadMany(requests);
    const results: RunReplayResult[] = [];
    let next = 0;
    for (const [i, log] of logs.entries()) {
      if (startedOf[i] === undefined) continue;
      const recorded = recordedRunOf(log, contexts[next++]);
      if (recorded !== undefined) results.push(whatIf(this.decider, recorded, definition));
    }
    return results;
  }

  private async report(job: ReplayRequested, chunk: number, total: number, results: readonly JsonRecord[], summaryOfAll?: ReplaySummary, error?: string): Promise<void> {
    const summary = summaryOfAll as JsonRecord | undefined;
    const done = Math.min(total, (chunk + 1) * CHUNK_RUNS);
    const progress: ReplayProgressed = {
      job_id: job.job_id,
      workspace_id: job.workspace_id,
      chunk,
      total,
      done,
      results,
      ...(summary === undefined ? {} : { summary }),
      ...(error === undefined ? {} : { error }),
    };
    const messageId = deterministicUuid('replay-progressed', job.job_id, String(chunk));
    const envelope = envelopeOf(REPLAY_PROGRESSED_TYPE, REPLAY_VERSION, messageId, job.workspace_id, this.clock.now(), progress);
    await this.bus.publish(TOPICS.replayProgressed.name, [envelopeMessage(job.workspace_id, envelope)]);
  }
}

/** One run's answer: who would get what, when, and what changed. Events stay in the engine. */
function resultView(result: RunReplayResult): JsonRecord {
  const started = result.baseline.events[0];
  const recipient = started?.type === 'run.started.v1' ? started.recipient : undefined;
  return {
    run_id: result.run_id,
    recipient: recipient === undefined ? null : recipient.kind === 'user' ? { $type: 'user', distinct_id: recipient.distinct_id } : { $type: 'object', object_type: recipient.object_type, id: recipient.id },
    status: { before: result.baseline.status, after: result.replayed.status },
    sends: result.replayed.sends,
    changes: result.changes,
    notes: result.replayed.notes,
  };
}
