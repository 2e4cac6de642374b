// The access decision on its own: who a world lets in, given what the platform says of a person.
import { describe, expect, it } from 'vitest';
import { accessSettings } from '../../src/config/accessSettings.ts';
import { decide, needsFacts, refusalNote } from '../../src/access/rules.ts';

const person = { guest: false, external: false, groups: [], bot: false };

describe('the access decision', () => {
  it('lets everyone in by default, without asking the platform anything', () => {
    const open = accessSettings(undefined);
    expect(needsFacts(open, 'U1')).toBe(false);
    expect(decide(open, 'U1', false, undefined)).toEqual({ allowed: true });
    expect(decide(open, 'U1', true, undefined)).toEqual({ allowed: true });
  });

  it('a person named in users is let in, guest or not; dms: deny holds for them too', () => {
    const listed = accessSettings({ users: ['U1'], guests: 'deny' });
    expect(needsFacts(listed, 'U1')).toBe(false);
    expect(decide(listed, 'U1', false, undefined)).toEqual({ allowed: true });
    expect(decide(accessSettings({ users: ['U1'], dms: 'deny' }), 'U1', true, undefined)).toEqual({ allowed: false, reason: 'dms' });
  });

  it('with a list, a group member is in unless a guest rule refuses them; anyone else is not listed', () => {
    const team = accessSettings({ users: ['U1'], groups: ['S1'], guests: 'deny' });
    expect(decide(team, 'U2', false, { ...person, groups: ['S1'] })).toEqual({ allowed: true });
    expect(decide(team, 'U2', false, { ...person, groups: ['S1'], guest: true })).toEqual({ allowed: false, reason: 'guest' });
    expect(decide(team, 'U3', false, person)).toEqual({ allowed: false, reason: 'not_listed' });
    expect(decide(accessSettings({ users: ['U1'] }), 'U3', false, undefined)).toEqual({ allowed: false, reason: 'not_listed' });
  });

  it('refuses external members when told to, and refuses when the facts could not be read', () => {
    const closed = accessSettings({ external: 'deny' });
    expect(decide(closed, 'U2', false, { ...person, external: true })).toEqual({ allowed: false, reason: 'external' });
    expect(decide(closed, 'U2', false, person)).toEqual({ allowed: true });
    expect(decide(closed, 'U2', false, undefined)).toEqual({ allowed: false, reason: 'unknown' });
  });

  it('names whom to ask, as a mention both platforms read', () => {
    expect(refusalNote('guest', ['U9', 'U8'])).toBe('You cannot use skillbot here: guests cannot use me here. Nothing of your message was kept. Ask <@U9>, <@U8> if you need access.');
    expect(refusalNote('not_listed', [])).toMatch(/Ask the person who runs this bot/);
  });
});
