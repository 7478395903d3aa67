import { MigrationClass } from '@herald/database';
import { Provider, Type } from '@nestjs/common';
import { CreateTemplates1763700400000 } from './migrations/1763700400000-create-templates';
import { StrictTemplates1763700410000 } from './migrations/1763700410000-strict-templates';
import { TemplateMockData1763700420000 } from './migrations/1763700420000-template-mock-data';
import { TemplateVersions1763701800000 } from './migrations/1763701800000-template-versions';
import { TemplateMockDataController } from './template-mock-data.controller';
import { TemplateEntity, TemplateRepository, TemplateVariantEntity } from './template.repository';
import { TemplateVariantsController } from './template-variants.controller';
import { TemplateVersionEntity, TemplateVersionRepository } from './template-version.repository';
import { TemplateVersionsController } from './template-versions.controller';
import { TemplatesController } from './templates.controller';
import { VariantApprovalController } from './variant-approval.controller';

/** Templates and their variants (interface 2.5) at `/v2/{workspace}/template/...`. */
export const TEMPLATE_CONTROLLERS: Type[] = [TemplatesController, TemplateVariantsController, VariantApprovalController, TemplateMockDataController, TemplateVersionsController];
export const TEMPLATE_PROVIDERS: Provider[] = [TemplateRepository, TemplateVersionRepository];
export const TEMPLATE_ENTITIES = [TemplateEntity, TemplateVariantEntity, TemplateVersionEntity];
export const TEMPLATE_MIGRATIONS: MigrationClass[] = [CreateTemplates1763700400000, StrictTemplates1763700410000, TemplateMockData1763700420000, TemplateVersions1763701800000];
