import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  DefinitionChanged,
  FieldError,
  PayloadValidator,
  TOPICS,
  compilePayloadSchema,
  definitionAppliedMessage,
} from '@herald/contracts';
import { MessageBus } from '@herald/bus';
import { CLOCK, Clock, HERALD_LOGGER, HeraldLogger, MESSAGE_BUS } from '@herald/runtime';

/** A workflow's or an event's `payload_schema`: a schema slug, and the version it pins (else the live one). */
export interface PayloadSchemaLink {
  readonly schema: string;
  readonly version_no?: number | null;
}

interface AnnouncedEventLink {
  readonly payload_schema: PayloadSchemaLink | null;
}

interface AnnouncedSchema {
  readonly version_no: number;
  readonly json_schema: unknown;
}

const COMPILED_CAPACITY = 5_000;

/**
 * The JSON Schemas of trigger data and event properties, from `notify.definition.changed.v1`
 * (kind `schema`; kind `event_schema` links one to an event name), and their compiled validators. A committed version never changes, so a
 * compiled one is kept (up to a bound) by workspace, slug and version.
 */
@Injectable()
export class PayloadSchemaReadModel {
  private readonly compiled = new Map<string, PayloadValidator | null>();

  constructor(
    @InjectDataSource('ingest') private readonly db: DataSource,
    @Inject(HERALD_LOGGER) private readonly logger: HeraldLogger,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * What is wrong with `data` by the linked schema, each by its path under `root`. A
   * schema this read model does not have (yet) checks nothing: management refuses a
   * link to a schema that is not live, so that only happens while it catches up.
   */
  async problems(workspaceId: string, link: PayloadSchemaLink, data: unknown, root = 'data'): Promise<FieldError[]> {
    const versionNo = link.version_no ?? (await this.liveVersionNo(workspaceId, link.schema));
    if (versionNo === undefined) {
      this.logger.warn('trigger data not checked: its linked schema is not in the read model yet', { workspace_id: workspaceId, schema: link.schema });
      return [];
    }
    const validate = await this.validator(workspaceId, link.schema, versionNo);
    return validate ? validate(data, root) : [];
  }

  /** The schema linked to an event name, if any. */
  async eventLink(workspaceId: string, event: string): Promise<PayloadSchemaLink | null> {
    const [row] = (await this.db.query(`SELECT payload_schema FROM ingest.event_schema_links WHERE workspace_id = $1 AND event = $2`, [workspaceId, event])) as Array<{
      payload_schema: PayloadSchemaLink | null;
    }>;
    return row?.payload_schema ?? null;
  }

  private async liveVersionNo(workspaceId: string, slug: string): Promise<number | undefined> {
    const [row] = (await this.db.query(`SELECT live_version_no FROM ingest.payload_schemas WHERE workspace_id = $1 AND slug = $2`, [workspaceId, slug])) as Array<{
      live_version_no: number;
    }>;
    return row?.live_version_no;
  }

  private async validator(workspaceId: string, slug: string, versionNo: number): Promise<PayloadValidator | null> {
    const key = `${workspaceId}\u0000${slug}\u0000${versionNo}`;
    const known = this.compiled.get(key);
    if (known !== undefined) return known;
    const [row] = (await this.db.query(`SELECT json_schema FROM ingest.payload_schema_versions WHERE workspace_id = $1 AND slug = $2 AND version_no = $3`, [
      workspaceId,
      slug,
      versionNo,
    ])) as Array<{ json_schema: unknown }>;
    if (!row) return null;
    const compiled = compilePayloadSchema(row.json_schema);
    // Management compiled it before committing: a failure here is a bug, logged, and checks nothing.
    if (!compiled.ok) this.logger.error('a committed payload schema does not compile', { workspace_id: workspaceId, schema: slug, version_no: versionNo, errors: compiled.errors });
    const validate = compiled.ok ? compiled.validate : null;
    if (this.compiled.size >= COMPILED_CAPACITY) this.compiled.clear();
    this.compiled.set(key, validate);
    return validate;
  }

  /** An `event_schema` change: a schema linked to an event name (DefinitionChangesConsumer). */
  async applyEventLink(change: DefinitionChanged): Promise<void> {
    const link = (change.document as AnnouncedEventLink | undefined)?.payload_schema ?? null;
    // A redelivered or reordered older announcement never overwrites a newer one.
    await this.db.query(
      `INSERT INTO ingest.event_schema_links (workspace_id, event, payload_schema, version) VALUES ($1, $2, $3::jsonb, $4)
       ON CONFLICT (workspace_id, event) DO UPDATE SET payload_schema = EXCLUDED.payload_schema, version = EXCLUDED.version
       WHERE ingest.event_schema_links.version < EXCLUDED.version`,
      [change.workspace_id, change.id, link === null ? null : JSON.stringify(link), change.version],
    );
    this.logger.info('event schema link read model updated', { workspace_id: change.workspace_id, event: change.id, version: change.version });
    await this.announceApplied(change);
  }

  /** A `schema` change of `notify.definition.changed.v1` (DefinitionChangesConsumer). */
  async apply(change: DefinitionChanged): Promise<void> {
    await this.db.transaction(async (tx) => {
      if (change.change === 'deleted') {
        await tx.query(`DELETE FROM ingest.payload_schemas WHERE workspace_id = $1 AND slug = $2 AND version < $3`, [change.workspace_id, change.id, change.version]);
        return;
      }
      const document = change.document as AnnouncedSchema;
      // Versions are immutable once committed: the first announcement of one is kept.
      await tx.query(
        `INSERT INTO ingest.payload_schema_versions (workspace_id, slug, version_no, json_schema) VALUES ($1, $2, $3, $4::jsonb) ON CONFLICT DO NOTHING`,
        [change.workspace_id, change.id, document.version_no, JSON.stringify(document.json_schema)],
      );
      // A redelivered or reordered older announcement never overwrites a newer one.
      await tx.query(
        `INSERT INTO ingest.payload_schemas (workspace_id, slug, live_version_no, version) VALUES ($1, $2, $3, $4)
         ON CONFLICT (workspace_id, slug) DO UPDATE SET live_version_no = EXCLUDED.live_version_no, version = EXCLUDED.version
         WHERE ingest.payload_schemas.version < EXCLUDED.version`,
        [change.workspace_id, change.id, document.version_no, change.version],
      );
    });
    this.logger.info('payload schema read model updated', { workspace_id: change.workspace_id, schema: change.id, change: change.change, version: change.version });
    await this.announceApplied(change);
  }

  /** Management's commit waits for this before it answers, so the next trigger or event is checked against it. */
  private async announceApplied(change: DefinitionChanged): Promise<void> {
    const applied = { service: 'ingest-api', workspace_id: change.workspace_id, kind: change.kind, id: change.id, version: change.version };
    await this.bus.publish(TOPICS.definitionApplied.name, [definitionAppliedMessage(applied, this.clock.now())]);
  }
}
