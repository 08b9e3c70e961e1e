import { resolve } from 'node:path'
import { defineConfig } from 'vite'
import react from '@vitejs/plugin-react'

// The jaws example's Vite app (README.md). Two pages: the React app at /
// and a plain page at /guide/, whose index.html is a directory's index.
export default defineConfig({
  plugins: [react()],
  build: {
    // Every asset a file of its own, none inlined as a data: URL, so that
    // the build has the content types a real site serves.
    assetsInlineLimit: 0,
    rolldownOptions: {
      input: {
        main: resolve(import.meta.dirname, 'index.html'),
        guide: resolve(import.meta.dirname, 'guide/index.html'),
      },
    },
  },
})
