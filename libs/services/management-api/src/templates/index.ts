import { MigrationClass } from '@herald/database';
import { Provider, Type } from '@nestjs/common';
import { CreateTemplates1763700400000 } from './migrations/1763700400000-create-templates';
import { StrictTemplates1763700410000 } from './migrations/1763700410000-strict-templates';
import { TemplateMockData1763700420000 } from './migrations/1763700420000-template-mock-data';
import { TemplateMockDataController } from './template-mock-data.controller';
import { TemplateStore } from './template-store';
import { TemplateVariantsController } from './template-variants.controller';
import { TemplatesController } from './templates.controller';
import { VariantApprovalController } from './variant-approval.controller';

/** Templates and their variants (interface 2.5) at `/v2/{workspace}/template/...`. */
export const TEMPLATE_CONTROLLERS: Type[] = [TemplatesController, TemplateVariantsController, VariantApprovalController, TemplateMockDataController];
export const TEMPLATE_PROVIDERS: Provider[] = [TemplateStore];
export const TEMPLATE_MIGRATIONS: MigrationClass[] = [CreateTemplates1763700400000, StrictTemplates1763700410000, TemplateMockData1763700420000];
