import { MigrationClass } from '@herald/database';
import { Provider, Type } from '@nestjs/common';

/** Vendors per channel with sealed credentials; filled in by the vendors work. */
export const VENDOR_CONTROLLERS: Type[] = [];
export const VENDOR_PROVIDERS: Provider[] = [];
export const VENDOR_MIGRATIONS: MigrationClass[] = [];
