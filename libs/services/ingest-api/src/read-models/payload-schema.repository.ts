import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, EntitySchema, LessThan, Repository } from 'typeorm';

/** A workflow's or an event's `payload_schema`: a schema slug, and the version it pins (else the live one). */
export interface PayloadSchemaLink {
  readonly schema: string;
  readonly version_no?: number | null;
}

/** A schema's live version, as management-api last announced it. */
export interface LivePayloadSchema {
  workspaceId: string;
  slug: string;
  liveVersionNo: number;
  /** The announcement's version: an older one never overwrites a newer one. */
  version: number;
}

/** A committed version of a schema: never changes once committed. */
export interface PayloadSchemaVersion {
  workspaceId: string;
  slug: string;
  versionNo: number;
  /** A JSON Schema (an object, or a boolean): `NonNullable<unknown>`, as TypeORM's insert types refuse a plain `unknown`. */
  jsonSchema: NonNullable<unknown>;
}

/** The schema an event name's properties must satisfy (null once delinked). */
export interface EventSchemaLink {
  workspaceId: string;
  event: string;
  payloadSchema: PayloadSchemaLink | null;
  /** The announcement's version: an older one never overwrites a newer one. */
  version: number;
}

/** `ingest.payload_schemas` (created by the migrations, never by TypeORM). */
export const LivePayloadSchemaEntity = new EntitySchema<LivePayloadSchema>({
  name: 'LivePayloadSchema',
  schema: 'ingest',
  tableName: 'payload_schemas',
  columns: {
    workspaceId: { name: 'workspace_id', type: 'uuid', primary: true },
    slug: { type: 'text', primary: true },
    liveVersionNo: { name: 'live_version_no', type: 'integer' },
    version: { type: 'integer' },
  },
});

/** `ingest.payload_schema_versions` (created by the migrations, never by TypeORM). */
export const PayloadSchemaVersionEntity = new EntitySchema<PayloadSchemaVersion>({
  name: 'PayloadSchemaVersion',
  schema: 'ingest',
  tableName: 'payload_schema_versions',
  columns: {
    workspaceId: { name: 'workspace_id', type: 'uuid', primary: true },
    slug: { type: 'text', primary: true },
    versionNo: { name: 'version_no', type: 'integer', primary: true },
    jsonSchema: { name: 'json_schema', type: 'jsonb' },
  },
});

/** `ingest.event_schema_links` (created by the migrations, never by TypeORM). */
export const EventSchemaLinkEntity = new EntitySchema<EventSchemaLink>({
  name: 'EventSchemaLink',
  schema: 'ingest',
  tableName: 'event_schema_links',
  columns: {
    workspaceId: { name: 'workspace_id', type: 'uuid', primary: true },
    event: { type: 'text', primary: true },
    payloadSchema: { name: 'payload_schema', type: 'jsonb', nullable: true },
    version: { type: 'integer' },
  },
});

/**
 * The JSON Schemas of trigger data and event properties, from `notify.definition.changed.v1`
 * (kind `schema`: every committed version, since a workflow may pin one, and which is
 * live; kind `event_schema`: the schema linked to an event name).
 */
@Injectable()
export class PayloadSchemaRepository {
  constructor(@InjectDataSource('ingest') private readonly db: DataSource) {}

  /** The live version of a workspace's schema; undefined when it has none (or it is not here yet). One read by primary key. */
  async liveVersionNo(workspaceId: string, slug: string): Promise<number | undefined> {
    const row = await this.live().findOne({ select: { workspaceId: true, slug: true, liveVersionNo: true }, where: { workspaceId, slug } });
    return row?.liveVersionNo;
  }

  /** A committed version's JSON Schema; undefined when this version is not here. One read by primary key. */
  async jsonSchemaOf(workspaceId: string, slug: string, versionNo: number): Promise<NonNullable<unknown> | undefined> {
    const row = await this.versions().findOne({ select: { workspaceId: true, slug: true, versionNo: true, jsonSchema: true }, where: { workspaceId, slug, versionNo } });
    return row?.jsonSchema;
  }

  /**
   * Keeps a committed version (the first announcement of a version is kept: versions
   * never change) and makes it live, unless the live one stored is of the same or a
   * newer announcement. In one transaction.
   */
  async saveLive(committed: PayloadSchemaVersion, version: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      await this.versions(tx).createQueryBuilder().insert().values(committed).orIgnore().execute();
      await this.live(tx)
        .createQueryBuilder('stored')
        .insert()
        .values({ workspaceId: committed.workspaceId, slug: committed.slug, liveVersionNo: committed.versionNo, version })
        .orUpdate(['live_version_no', 'version'], ['workspace_id', 'slug'], { overwriteCondition: { where: 'stored.version < EXCLUDED.version' } })
        .execute();
    });
  }

  /** A deleted schema has no live version, unless the stored one is of the same or a newer announcement; its versions are kept. */
  async removeLive(workspaceId: string, slug: string, version: number): Promise<void> {
    await this.live().delete({ workspaceId, slug, version: LessThan(version) });
  }

  /** The schema linked to an event name, if any. One read by primary key. */
  async eventLink(workspaceId: string, event: string): Promise<PayloadSchemaLink | null> {
    const row = await this.eventLinks().findOne({ select: { workspaceId: true, event: true, payloadSchema: true }, where: { workspaceId, event } });
    return row?.payloadSchema ?? null;
  }

  /** Links (or, with null, delinks) an event name, unless the stored link is of the same or a newer announcement. One statement. */
  async saveEventLink(link: EventSchemaLink): Promise<void> {
    await this.eventLinks()
      .createQueryBuilder('stored')
      .insert()
      .values(link)
      .orUpdate(['payload_schema', 'version'], ['workspace_id', 'event'], { overwriteCondition: { where: 'stored.version < EXCLUDED.version' } })
      .execute();
  }

  private live(manager: EntityManager = this.db.manager): Repository<LivePayloadSchema> {
    return manager.getRepository(LivePayloadSchemaEntity);
  }

  private versions(manager: EntityManager = this.db.manager): Repository<PayloadSchemaVersion> {
    return manager.getRepository(PayloadSchemaVersionEntity);
  }

  private eventLinks(): Repository<EventSchemaLink> {
    return this.db.getRepository(EventSchemaLinkEntity);
  }
}
