// Worker entry: worker threads do not inherit tsx from --import, so register it here first.
import { register } from 'tsx/esm/api';

register();
await import('./fakeWorker.ts');
