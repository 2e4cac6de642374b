import { describe, expect, it } from 'vitest';
import { markdownToMrkdwn } from '../../adapters/slack/mrkdwn.ts';

describe('markdownToMrkdwn', () => {
  it('turns bold, italics and strike into their Slack forms', () => {
    expect(markdownToMrkdwn('**bold** and *italic* and _also_ and ~~gone~~')).toBe('*bold* and _italic_ and _also_ and ~gone~');
    expect(markdownToMrkdwn('__bold too__')).toBe('*bold too*');
  });

  it('turns links into <url|label> and keeps URLs with underscores whole', () => {
    expect(markdownToMrkdwn('See [the docs](https://example.com/a_b_c?x=1&y=2).')).toBe(
      'See <https://example.com/a_b_c?x=1&amp;y=2|the docs>.',
    );
    expect(markdownToMrkdwn('at https://example.com/snake_case_path now')).toBe('at https://example.com/snake_case_path now');
    expect(markdownToMrkdwn('<https://example.com>')).toBe('<https://example.com>');
  });

  it('does not make links out of unsafe schemes', () => {
    expect(markdownToMrkdwn('[click](javascript:alert(1))')).not.toContain('<javascript');
  });

  it('turns headings into bold lines and lists into bullets', () => {
    const md = '# Title\n## Sub **x**\n- one\n  - nested\n* two\n1. first\n2) second\n- [ ] todo\n- [x] done';
    expect(markdownToMrkdwn(md).split('\n')).toEqual([
      '*Title*',
      '*Sub x*',
      '• one',
      '    ◦ nested',
      '• two',
      '1. first',
      '2. second',
      '• ☐ todo',
      '• ☑ done',
    ]);
  });

  it('keeps code blocks literal, drops the language, and escapes what Slack would parse', () => {
    const md = 'Run:\n```bash\necho "**not bold**" <!channel> && ls\n```\nthen `a*b*c` <x>';
    expect(markdownToMrkdwn(md)).toBe('Run:\n```\necho "**not bold**" &lt;!channel&gt; &amp;&amp; ls\n```\nthen `a*b*c` &lt;x&gt;');
  });

  it('closes a code block the model left open', () => {
    expect(markdownToMrkdwn('```\ncode')).toBe('```\ncode\n```');
  });

  it('neutralises broadcast and mention syntax from the model or a script', () => {
    const out = markdownToMrkdwn('Hey <!channel> <!here> <!everyone> <@U123> <!subteam^S1> @here @channel @everyone');
    expect(out).not.toMatch(/<!|<@/);
    expect(out).not.toMatch(/@(here|channel|everyone)\b/);
    expect(out).toContain('&lt;!channel&gt;');
    expect(out).toContain('&lt;@U123&gt;');
  });

  it('keeps quotes and turns tables into aligned code blocks', () => {
    expect(markdownToMrkdwn('> quoted **text**')).toBe('> quoted *text*');
    const table = markdownToMrkdwn('| a | long header |\n|---|---|\n| 1 | 2 |');
    expect(table).toBe('```\na | long header\n1 | 2\n```');
  });

  it('honours backslash escapes', () => {
    expect(markdownToMrkdwn('2 \\* 3 \\* 4')).toBe('2 * 3 * 4');
  });
});
