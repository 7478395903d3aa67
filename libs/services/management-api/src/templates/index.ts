import { MigrationClass } from '@herald/database';
import { Provider, Type } from '@nestjs/common';

/** Templates and their variants (interface 2.5); filled in by the templates work. */
export const TEMPLATE_CONTROLLERS: Type[] = [];
export const TEMPLATE_PROVIDERS: Provider[] = [];
export const TEMPLATE_MIGRATIONS: MigrationClass[] = [];
