/**
 * axios' values (not its types), imported by this package in one place. axios stays external in a
 * user's bundle, where a bundler keeps one `import … from 'axios'` for every module of ours that
 * imports it (esbuild kept seven in the browser build of `attachRetry`, one of them unused); through
 * this module there is one. Types are imported from `axios` itself: they leave no trace.
 */
export { AxiosError, AxiosHeaders, CanceledError, default, isAxiosError, isCancel } from 'axios';
