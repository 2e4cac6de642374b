import { describe, expect, it } from 'vitest';
import { apiToolName } from '../../src/mcp/toolNames.ts';
import { buildWorldTools, searchTools } from '../../src/mcp/toolCatalog.ts';

const manyServers = () =>
  Array.from({ length: 10 }, (_, s) => ({
    server: `server${s}`,
    tools: Array.from({ length: 500 }, (_, t) => ({
      name: `tool_${t}`,
      description: `Does thing number ${t} of server ${s}: creates, lists or updates issues and documents.`,
      inputSchema: { type: 'object' as const, properties: { id: { type: 'string' }, text: { type: 'string' } }, required: ['id'] },
    })),
  }));

describe('the tools a world offers', () => {
  it('keeps names as the server gives them, and shortens one past 64 characters with a hash', () => {
    expect(apiToolName('everything', 'get-sum')).toBe('mcp__everything__get-sum');
    const long = apiToolName('server', 'a'.repeat(80));
    expect(long).toHaveLength(64);
    expect(long).toMatch(/^mcp__server__a+_[0-9a-f]{8}$/);
    expect(apiToolName('server', `${'a'.repeat(80)}b`)).not.toBe(long);
    expect(apiToolName('s', 'has.dot')).toMatch(/^mcp__s__has_dot_[0-9a-f]{8}$/);
  });

  it('past the budget, 10 servers of 500 tools cost two small search tools, the same bytes every time', () => {
    const first = buildWorldTools(manyServers(), 20_000);
    const second = buildWorldTools(manyServers(), 20_000);
    expect(first.search).toBe(true);
    expect(first.definitions.map((tool) => tool.name)).toEqual(['find_mcp_tools', 'call_mcp_tool']);
    expect(JSON.stringify(first.definitions)).toBe(JSON.stringify(second.definitions));
    expect(JSON.stringify(first.definitions).length).toBeLessThanOrEqual(15_000);
    expect(first.entries.size).toBe(5000);
    expect(searchTools(first, 'thing number 42 server 3')[0]?.fullName).toBe('mcp__server3__tool_42');
  });

  it('within the budget, every tool directly, sorted; a duplicate name is refused', () => {
    const tools = buildWorldTools([{ server: 'a', tools: [{ name: 'z', inputSchema: { type: 'object' } }, { name: 'b', inputSchema: { type: 'object' } }, { name: 'b', inputSchema: { type: 'object' } }] }], 20_000);
    expect(tools.search).toBe(false);
    expect(tools.definitions.map((tool) => tool.name)).toEqual(['mcp__a__b', 'mcp__a__z']);
    expect(tools.refused).toEqual([{ server: 'a', tool: 'b', why: 'its name mcp__a__b is taken by another tool' }]);
  });
});
