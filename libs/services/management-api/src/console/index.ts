import { Provider, Type } from '@nestjs/common';
import { ConsoleController } from './console.controller';
import { ConsoleSettings } from './console-settings';

/** The operator console's files (`/console/`) and what its sign-in page is told. */
export const CONSOLE_CONTROLLERS: Type[] = [ConsoleController];
export const CONSOLE_PROVIDERS: Provider[] = [ConsoleSettings];
export { ConsoleSettings } from './console-settings';
