// Preloaded with `node -r` by the CLI start-up test and bench: when the process exits, it writes the
// paths of every module it loaded to the file named by WSMIGRATE_LOADED_MODULES_FILE.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a plain CommonJS preload for `node -r`, loaded before any TypeScript hook
const { writeFileSync } = require('node:fs');

process.on('exit', () => {
  const file = process.env.WSMIGRATE_LOADED_MODULES_FILE;
  if (file) writeFileSync(file, Object.keys(require.cache).join('\n'));
});
