import { createStore } from '../../src/store/createStore.ts';
import { describeStoreContract } from './storeContract.ts';

describeStoreContract(
  'memory://',
  async () => ({
    open: async () => createStore('memory://'),
    cleanup: async () => undefined,
  }),
  { shared: false },
);
