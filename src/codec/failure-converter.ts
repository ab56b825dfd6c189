// The failure converter of every client and worker (and of the workflow bundle): failure messages
// and stack traces go into an encoded attributes payload, so the payload codec encrypts them (a
// registry error can repeat a field's value). The SDK loads this module by path with require(), in
// the worker's main thread and bundled into the workflow sandbox: it is written in plain JavaScript
// syntax so that the .ts source loads too (tests run from src), which needs Node ≥ 20.19.
import { DefaultFailureConverter } from '@temporalio/common';

export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
