import { MigrationClass } from '@herald/database';
import { Provider, Type } from '@nestjs/common';
import { CreateVendors1763700500000 } from './migrations/1763700500000-create-vendors';
import { VendorCredentials } from './vendor-credentials';
import { VendorEntity, VendorRepository } from './vendor.repository';
import { VendorTestClient } from './vendor-test-client';
import { VendorsController } from './vendors.controller';

/** Vendors per channel with sealed credentials. */
export const VENDOR_CONTROLLERS: Type[] = [VendorsController];
export const VENDOR_PROVIDERS: Provider[] = [VendorCredentials, VendorRepository, VendorTestClient];
export { VendorTestClient };
export const VENDOR_ENTITIES = [VendorEntity];
export const VENDOR_MIGRATIONS: MigrationClass[] = [CreateVendors1763700500000];
