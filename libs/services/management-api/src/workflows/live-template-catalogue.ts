import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { TemplateCatalogue } from './workflow-validation-ports';

/** Templates a workflow may send: those with a live version (a draft-only template has nothing to render). */
@Injectable()
export class LiveTemplateCatalogue implements TemplateCatalogue {
  constructor(@InjectDataSource('management') private readonly db: DataSource) {}

  async templateSlugs(workspaceId: string): Promise<Set<string>> {
    const rows = (await this.db.query(`SELECT slug FROM management.templates WHERE workspace_id = $1 AND live IS NOT NULL`, [
      workspaceId,
    ])) as Array<{ slug: string }>;
    return new Set(rows.map((r) => r.slug));
  }
}
