import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

// The console is served by the api at /ui (libs/api/src/console); `npm run build` writes it to
// dist/console. Preact's automatic JSX runtime through Vite's own transform: no plugin needed.
export default defineConfig({
  root,
  base: '/ui/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  resolve: {
    // Of core, only its dependency-free words: nothing of zod or cron-parser reaches the bundle.
    alias: {
      '@drover/api-client': fileURLToPath(new URL('../libs/api-client/src/index.ts', import.meta.url)),
      '@drover/core/words': fileURLToPath(new URL('../libs/core/src/words.ts', import.meta.url)),
      '@drover/core/human-time': fileURLToPath(new URL('../libs/core/src/human-time.ts', import.meta.url)),
    },
  },
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    reportCompressedSize: false,
    chunkSizeWarningLimit: 200,
  },
  server: {
    // `npx vite console` against a local api (npm start): same-origin calls through the proxy.
    proxy: { '/api': 'http://127.0.0.1:3000' },
  },
});
