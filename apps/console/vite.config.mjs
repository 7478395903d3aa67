import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));

// The operator console: built into apps/console/dist (git-ignored), served by management-api under /console/.
// mail-frame.html: the frame an email preview is shown in (its own content security policy).
export default defineConfig({
  root: here('.'),
  base: '/console/',
  plugins: [react()],
  logLevel: 'warn',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    reportCompressedSize: false,
    rollupOptions: { input: { main: here('index.html'), 'mail-frame': here('mail-frame.html') } },
  },
});
