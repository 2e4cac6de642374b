import { createStore } from '../../src/store/createStore.ts';
import { describePubSubContract } from './pubSubContract.ts';
import { describeStoreContract } from './storeContract.ts';

describeStoreContract(
  'memory://',
  async () => ({
    open: async () => createStore('memory://'),
    cleanup: async () => undefined,
  }),
  { shared: false },
);

describePubSubContract(
  'memory://',
  async () => ({ open: async () => createStore('memory://'), cleanup: async () => undefined }),
  { crossInstance: false },
);
