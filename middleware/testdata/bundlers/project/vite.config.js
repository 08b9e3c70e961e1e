// Vite (Rolldown under Vite 8, Rollup under Vite 7) with its default names,
// assets/[name]-[hash].js and assets/[name]-[hash][extname]; every asset is
// emitted as a file, none inlined, and each script has a source map.
export default {
  logLevel: 'warn',
  build: {
    assetsInlineLimit: 0,
    sourcemap: true,
  },
};
