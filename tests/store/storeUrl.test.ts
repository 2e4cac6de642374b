import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createStore, parseStoreUrl, StoreUrlError } from '../../src/store/createStore.ts';

describe('STORE_URL', () => {
  it('accepts the three documented forms', () => {
    expect(parseStoreUrl('memory://')).toEqual({ kind: 'memory' });
    expect(parseStoreUrl('sqlite://./data/skillbot.sqlite', '/srv/bot')).toEqual({
      kind: 'sqlite',
      path: path.resolve('/srv/bot', 'data/skillbot.sqlite'),
    });
    expect(parseStoreUrl('sqlite:///var/lib/skillbot/db.sqlite')).toEqual({ kind: 'sqlite', path: '/var/lib/skillbot/db.sqlite' });
    expect(parseStoreUrl('redis://cache.internal:6380')).toMatchObject({ kind: 'redis', display: 'cache.internal:6380' });
    expect(parseStoreUrl('redis://:secret@cache:6379/2')).toMatchObject({ kind: 'redis', url: 'redis://:secret@cache:6379/2' });
  });

  it.each([
    ['', /is empty/],
    ['postgres://db:5432/skillbot', /is not a supported store/],
    ['./data/skillbot.sqlite', /is not a supported store/],
    ['sqlite://', /has no file path/],
    ['redis://', /has no host|not a valid URL/],
    ['redis://cache:6379/skillbot', /not a database number/],
    ['memory://somewhere', /is not a supported store/],
  ])('refuses %j with an error naming the variable and the accepted forms', async (url, reason) => {
    const attempt = createStore(url);
    await expect(attempt).rejects.toThrow(StoreUrlError);
    await expect(attempt).rejects.toThrow(reason);
    await expect(attempt).rejects.toThrow(/^STORE_URL ".*" .*: use sqlite:\/\/PATH .*, redis:\/\/HOST:PORT or memory:\/\/$/);
  });

  it('never repeats a password in the error', () => {
    expect(() => parseStoreUrl('rediss://user:hunter2@cache:6379/db')).toThrow(/rediss:\/\/\*\*\*@cache/);
    expect(() => parseStoreUrl('rediss://user:hunter2@cache:6379/db')).not.toThrow(/hunter2/);
    // Not percent-encoded, '@' and '/' in a password would otherwise leave part of it in view.
    expect(() => parseStoreUrl('redis://:hun@ter/2@cache:6379')).toThrow(/"redis:\/\/\*\*\*@cache:6379"/);
    expect(() => parseStoreUrl('redis://:hun@ter/2@cache:6379')).not.toThrow(/ter/);
  });
});
