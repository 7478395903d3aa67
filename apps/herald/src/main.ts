import { ConfigError, HeraldLogger } from '@herald/runtime';
import { startEmbeddedHerald } from './embedded-herald';

// `npm start`: the embedded default, all five services in this process.
startEmbeddedHerald()
  .then((herald) => {
    herald.lifecycle.installSignalHandlers();
    // Run by npm (`npm start`): end with npm, even when its SIGTERM does not reach this process.
    if (process.env.npm_lifecycle_event) herald.lifecycle.stopWithParent();
  })
  .catch((error: unknown) => {
    // Failures after the logger exists are logged inside; this covers the ones before
    // (configuration, a data folder in use), in the same JSON shape.
    new HeraldLogger('embedded').error('cannot start', error instanceof ConfigError ? { problems: error.problems } : error);
    process.exit(error instanceof ConfigError ? 2 : 1);
  });
