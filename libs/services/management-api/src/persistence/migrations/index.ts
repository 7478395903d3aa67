import { CreateAccounts1763700000000 } from './1763700000000-create-accounts';

export const MANAGEMENT_MIGRATIONS = [CreateAccounts1763700000000];
