// Loads TypeScript at require time with SWC (type checking is `npm run typecheck`).
// One register hook for `npm start`, the service entrypoints, benches and Docker,
// so there is no build output to keep in step with the sources.
const path = require('node:path');
process.env.SWC_NODE_PROJECT ??= path.join(__dirname, '..', 'tsconfig.json');
require('@swc-node/register');
