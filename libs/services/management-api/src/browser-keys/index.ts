import { MigrationClass } from '@herald/database';
import { Provider, Type } from '@nestjs/common';
import { CreateBrowserKeys1763700800000 } from './migrations/1763700800000-create-browser-keys';
import { PublicKeyEntity, PublicKeyRepository } from './public-key.repository';
import { PublicKeysController } from './public-keys.controller';
import { SigningKeyEntity, SigningKeyRepository } from './signing-key.repository';
import { SigningKeysController } from './signing-keys.controller';

/** The browser inbox's keys: public keys (with allowed origins) and ES256 signing keys. */
export const BROWSER_KEY_CONTROLLERS: Type[] = [PublicKeysController, SigningKeysController];
export const BROWSER_KEY_PROVIDERS: Provider[] = [PublicKeyRepository, SigningKeyRepository];
export const BROWSER_KEY_ENTITIES = [PublicKeyEntity, SigningKeyEntity];
export const BROWSER_KEY_MIGRATIONS: MigrationClass[] = [CreateBrowserKeys1763700800000];

