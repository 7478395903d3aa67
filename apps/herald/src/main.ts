import { ConfigError } from '@herald/runtime';
import { startEmbeddedHerald } from './embedded-herald';

// `npm start`: the embedded default, all five services in this process.
startEmbeddedHerald()
  .then((herald) => herald.lifecycle.installSignalHandlers())
  .catch((error: unknown) => {
    if (error instanceof ConfigError) process.stderr.write(`${error.message}\n`);
    process.exit(error instanceof ConfigError ? 2 : 1);
  });
